package reference

import (
	"strings"

	"github.com/ragd/ragd/index/graph"
)

// linkerWeight is what a mention chunk scores per term of the matched
// name, up to 1: a longer name is a surer match.
const linkerWeight = 0.5

// Linkers answers relationship questions ("which notes link to X", "which
// page embeds X"): it finds note names and aliases in the query terms,
// longest first and of any length, and scores the chunks of other notes
// that link to (or, with embeds, embed) the named notes. It returns the
// chunks' scores, the matched entities and the notes they resolve to (the
// subjects of the question, which are not its answer).
func (g *Graph) Linkers(terms []string, embeds bool) (map[graph.ChunkRef]float64, []graph.Match, []graph.DocID) {
	covered := make([]bool, len(terms))
	scores := make(map[graph.ChunkRef]float64)
	var matches []graph.Match
	var subjects []graph.DocID
	for n := min(graphMaxNgram, len(terms)); n >= 1; n-- {
		for i := 0; i+n <= len(terms); i++ {
			if anyCovered(covered[i : i+n]) {
				continue
			}
			key := strings.Join(terms[i:i+n], " ")
			found := false
			for vault, stems := range g.stems {
				for _, ent := range stems[key] {
					if strings.HasPrefix(ent, "#") || isTyped(ent) {
						continue
					}
					ids := g.names[vault][ent]
					if len(ids) == 0 {
						continue
					}
					found = true
					matches = append(matches, graph.Match{Vault: vault, Key: ent, Terms: n})
					w := min(1, linkerWeight*float64(n))
					for _, id := range ids {
						subjects = append(subjects, id)
						g.mentions(vault, id, embeds, func(ref graph.ChunkRef) {
							scores[ref] = max(scores[ref], w)
						})
					}
				}
			}
			if found {
				for j := i; j < i+n; j++ {
					covered[j] = true
				}
			}
		}
	}
	return scores, matches, subjects
}

// mentions calls fn with each chunk of another note that links to note id
// through any of its names (embeds only, with embeds).
func (g *Graph) mentions(vault string, id graph.DocID, embeds bool, fn func(graph.ChunkRef)) {
	d := g.docs[id]
	if d == nil {
		return
	}
	n := 0
	for _, name := range d.names {
		for _, e := range g.in[vault][name] {
			if e.src == id {
				continue
			}
			r := g.docs[e.src].rels[e.rel]
			if r.Chunk < 0 || r.Type == graph.RelTagged || embeds && r.Type != graph.RelEmbeds {
				continue
			}
			if n++; n > graphMaxPerNode {
				return
			}
			fn(graph.ChunkRef{Doc: e.src, Ord: uint32(r.Chunk)})
		}
	}
}

func anyCovered(bs []bool) bool {
	for _, b := range bs {
		if b {
			return true
		}
	}
	return false
}
