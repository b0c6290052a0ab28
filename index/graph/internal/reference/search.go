package reference

import (
	"strings"

	"github.com/ragd/ragd/index/graph"
)

// Weights of the graph channel: how much of a mentioned entity's weight
// reaches each kind of chunk, and the decay per hop.
const (
	graphOwnChunk   = 1.0 // the mentioned note's own chunks (first chunk; later ones decay)
	graphMention    = 0.7 // chunks that link to or tag the mentioned entity
	graphHopDecay   = 0.4 // a neighbour one hop away
	graphMaxNgram   = 5   // longest name, in terms, looked for in a query
	graphMaxPerNode = 200 // chunks one entity may contribute (a tag on every note)
)

// Search is the graph retrieval channel: it finds note names, aliases,
// tags and typed entities' names in the query terms (analysed, so matching
// is case- and stem-insensitive), walks one hop of links (or, from a typed
// entity, of facts) from them, and scores the chunks of the reached notes
// and the chunks that mention them. It returns the score of every chunk
// reached (the index ranks them and applies the scope) and the entities it
// matched.
func (g *Graph) Search(terms []string) (map[graph.ChunkRef]float64, []graph.Match) {
	type seed struct {
		vault, key string
		weight     float64
	}
	var seeds []seed
	var matches []graph.Match
	covered := make([]bool, len(terms))
	// Longest names first; a shorter name inside a longer match is skipped
	// ("restic" inside "restic backups").
	for n := min(graphMaxNgram, len(terms)); n >= graphMinTerms(len(terms)); n-- {
		for i := 0; i+n <= len(terms); i++ {
			if allCovered(covered[i : i+n]) {
				continue
			}
			key := strings.Join(terms[i:i+n], " ")
			found := false
			for vault, stems := range g.stems {
				for _, ent := range stems[key] {
					w := 0.5 + 0.25*float64(n-1)
					seeds = append(seeds, seed{vault, ent, min(w, 1)})
					matches = append(matches, graph.Match{Vault: vault, Key: ent, Terms: n})
					found = true
				}
			}
			if found {
				for j := i; j < i+n; j++ {
					covered[j] = true
				}
			}
		}
	}
	if len(seeds) == 0 {
		return nil, nil
	}
	scores := make(map[graph.ChunkRef]float64)
	add := func(ref graph.ChunkRef, w float64) {
		if w > scores[ref] {
			scores[ref] = w
		}
	}
	reach := func(vault, key string, w float64, hop bool) {
		if strings.HasPrefix(key, "#") {
			for i, e := range g.in[vault][key] {
				if i == graphMaxPerNode {
					break
				}
				if r := g.docs[e.src].rels[e.rel]; r.Chunk >= 0 {
					add(graph.ChunkRef{Doc: e.src, Ord: uint32(r.Chunk)}, w*graphMention)
				}
			}
			return
		}
		for _, id := range g.names[vault][key] {
			for ord := range g.docs[id].chunks {
				add(graph.ChunkRef{Doc: id, Ord: uint32(ord)}, w*graphOwnChunk/(1+0.25*float64(ord)))
				if hop && ord == 0 {
					break // a neighbour contributes its opening chunk only
				}
			}
			if hop {
				continue
			}
			n := 0
			for _, name := range g.docs[id].names {
				for _, e := range g.in[vault][name] {
					if n++; n > graphMaxPerNode {
						break
					}
					if r := g.docs[e.src].rels[e.rel]; r.Chunk >= 0 && e.src != id {
						add(graph.ChunkRef{Doc: e.src, Ord: uint32(r.Chunk)}, w*graphMention)
					}
				}
			}
		}
	}
	for _, sd := range seeds {
		if isTyped(sd.key) && len(g.names[sd.vault][sd.key]) == 0 {
			g.reachTyped(sd.vault, sd.key, sd.weight, add)
			continue
		}
		reach(sd.vault, sd.key, sd.weight, false)
		for _, nb := range g.neighborsOf(sd.vault, sd.key) {
			if !strings.HasPrefix(nb, "#") {
				reach(sd.vault, nb, sd.weight*graphHopDecay, true)
			}
		}
	}
	return scores, matches
}

func allCovered(bs []bool) bool {
	for _, b := range bs {
		if !b {
			return false
		}
	}
	return true
}

// graphMinTerms is the shortest entity name, in terms, the channel acts on.
// One-word names ("Tags", "Search", "Home") are everyday words in most
// questions, and following their links was measured to hurt; they count
// only when they are the whole query.
func graphMinTerms(queryTerms int) int {
	if queryTerms == 1 {
		return 1
	}
	return 2
}
