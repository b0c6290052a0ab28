package graph

import "strings"

// Weights of the graph channel: how much of a mentioned entity's weight
// reaches each kind of chunk, and the decay per hop.
const (
	graphOwnChunk   = 1.0 // the mentioned note's own chunks (first chunk; later ones decay)
	graphMention    = 0.7 // chunks that link to or tag the mentioned entity
	graphHopDecay   = 0.4 // a neighbour one hop away
	graphMaxNgram   = 5   // longest name, in terms, looked for in a query
	graphMaxPerNode = 200 // chunks one entity may contribute (a tag on every note)
)

// Match is an entity the graph channel found in a query.
type Match struct {
	Vault, Key string
	Terms      int // query terms the name covered
}

// Search is the graph retrieval channel: it finds note names, aliases,
// tags and typed entities' names in the query terms (analysed, so matching
// is case- and stem-insensitive), walks one hop of links (or, from a typed
// entity, of facts) from them, and scores the chunks of the reached notes
// and the chunks that mention them. It returns the score of every chunk
// reached (the index ranks them and applies the scope) and the entities it
// matched.
func (g *Graph) Search(terms []string) (map[ChunkRef]float64, []Match) {
	type seed struct {
		vault, key uint32
		weight     float64
	}
	var seeds []seed
	var matches []Match
	covered := make([]bool, len(terms))
	// Longest names first; a shorter name inside a longer match is skipped
	// ("restic" inside "restic backups").
	for n := min(graphMaxNgram, len(terms)); n >= graphMinTerms(len(terms)); n-- {
		for i := 0; i+n <= len(terms); i++ {
			if allCovered(covered[i : i+n]) {
				continue
			}
			key, ok := g.sym(strings.Join(terms[i:i+n], " "))
			if !ok {
				continue
			}
			found := false
			for _, vault := range g.vaults {
				for _, ent := range g.stems.get(pair(vault, key)) {
					w := 0.5 + 0.25*float64(n-1)
					seeds = append(seeds, seed{vault, ent, min(w, 1)})
					matches = append(matches, Match{g.str(vault), g.str(ent), n})
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
	scores := make(map[ChunkRef]float64)
	add := func(ref ChunkRef, w float64) {
		if w > scores[ref] {
			scores[ref] = w
		}
	}
	reach := func(vault, key uint32, w float64, hop bool) {
		if g.isTag(key) {
			for i, e := range g.edges(vault, key) {
				if i == graphMaxPerNode {
					break
				}
				if r := g.rel(e); r.chunk >= 0 {
					add(ChunkRef{g.nodes[e.src].id, uint32(r.chunk)}, w*graphMention)
				}
			}
			return
		}
		for _, id := range g.names.get(pair(vault, key)) {
			nd := g.node(id)
			for ord := range int(nd.chunks) {
				add(ChunkRef{id, uint32(ord)}, w*graphOwnChunk/(1+0.25*float64(ord)))
				if hop && ord == 0 {
					break // a neighbour contributes its opening chunk only
				}
			}
			if hop {
				continue
			}
			n := 0
			for _, name := range g.strsOf(nd.names) {
				for _, e := range g.edges(vault, name) {
					if n++; n > graphMaxPerNode {
						break
					}
					src := g.nodes[e.src].id
					if r := g.rel(e); r.chunk >= 0 && src != id {
						add(ChunkRef{src, uint32(r.chunk)}, w*graphMention)
					}
				}
			}
		}
	}
	for _, sd := range seeds {
		if isTyped(g.str(sd.key)) && g.names.count(pair(sd.vault, sd.key)) == 0 {
			g.reachTyped(sd.vault, sd.key, sd.weight, add)
			continue
		}
		reach(sd.vault, sd.key, sd.weight, false)
		for _, nb := range g.neighborsOf(sd.vault, sd.key) {
			if !g.isTag(nb) {
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
