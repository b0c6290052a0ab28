package graph

import "strings"

// linkerWeight is what a mention chunk scores per term of the matched
// name, up to 1: a longer name is a surer match.
const linkerWeight = 0.5

// Linkers answers relationship questions ("which notes link to X", "which
// page embeds X"): it finds note names and aliases in the query terms,
// longest first and of any length, and scores the chunks of other notes
// that link to (or, with embeds, embed) the named notes. It returns the
// chunks' scores, the matched entities and the notes they resolve to (the
// subjects of the question, which are not its answer).
func (g *Graph) Linkers(terms []string, embeds bool) (map[ChunkRef]float64, []Match, []DocID) {
	covered := make([]bool, len(terms))
	scores := make(map[ChunkRef]float64)
	var matches []Match
	var subjects []DocID
	for n := min(graphMaxNgram, len(terms)); n >= 1; n-- {
		for i := 0; i+n <= len(terms); i++ {
			if anyCovered(covered[i : i+n]) {
				continue
			}
			key, ok := g.sym(strings.Join(terms[i:i+n], " "))
			if !ok {
				continue
			}
			found := false
			for _, vault := range g.vaults {
				for _, ent := range g.stems.get(pair(vault, key)) {
					if e := g.str(ent); strings.HasPrefix(e, "#") || isTyped(e) {
						continue
					}
					ids := g.names.get(pair(vault, ent))
					if len(ids) == 0 {
						continue
					}
					found = true
					matches = append(matches, Match{g.str(vault), g.str(ent), n})
					w := min(1, linkerWeight*float64(n))
					for _, id := range ids {
						subjects = append(subjects, id)
						g.mentions(vault, id, embeds, func(ref ChunkRef) {
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
func (g *Graph) mentions(vault uint32, id DocID, embeds bool, fn func(ChunkRef)) {
	nd := g.node(id)
	if nd == nil {
		return
	}
	n := 0
	for _, name := range g.strsOf(nd.names) {
		for _, e := range g.edges(vault, name) {
			src := g.nodes[e.src].id
			if src == id {
				continue
			}
			r := g.rel(e)
			if r.chunk < 0 || r.typ == symTagged || embeds && r.typ != symEmbeds {
				continue
			}
			if n++; n > graphMaxPerNode {
				return
			}
			fn(ChunkRef{src, uint32(r.chunk)})
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
