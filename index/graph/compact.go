package graph

import (
	"cmp"
	"slices"
)

// Compaction and trimming: the graph rebuilt without the rows of removed
// notes, and its arrays cut to what they hold.

// compact rebuilds the graph from its live notes, added in the order they
// were (names in the order of their nodes, relations in the order they
// came), so that every list keeps its order, without the rows and symbols
// of removed notes.
func (g *Graph) compact() {
	c := New()
	withRels := make([]uint32, 0, len(g.docs))
	for i := range g.nodes {
		n := &g.nodes[i]
		if !n.live {
			continue
		}
		m := node{id: n.id, vault: c.syms.intern(g.str(n.vault)), path: c.syms.intern(g.str(n.path)),
			title: c.syms.intern(g.str(n.title)), chunks: n.chunks, live: true}
		m.names = c.appendSyms(g, g.strsOf(n.names))
		c.addNode(m)
		if n.hasRels {
			withRels = append(withRels, uint32(i))
		}
	}
	// Relations in the order they were added: by their place in g.rels.
	sortByRelsOff(withRels, g.nodes)
	for _, i := range withRels {
		n := &g.nodes[i]
		rec := Record{Stems: g.strings(g.strsOf(n.stems))}
		for _, r := range g.relsOf(n) {
			rec.Relations = append(rec.Relations, g.relation(&r))
		}
		for _, f := range g.factsOf(n) {
			rec.Facts = append(rec.Facts, Fact{Subject: g.str(f.subject), Predicate: g.str(f.predicate),
				Object: g.str(f.object), Chunk: int(f.chunk), Line: int(f.line), Confidence: f.confidence})
		}
		c.AddRelations(n.id, &rec)
	}
	c.namesGen = g.namesGen + 1
	c.compactions = g.compactions + 1
	c.Trim()
	*g = *c
}

// Trim gives back the room the graph's arrays grew into as notes were
// added: the index calls it when it has loaded every note, so that the
// lists and rows are about as long as what they hold, as if they had been
// built in one pass. They keep an eighth more room, so that the writes
// that follow do not at once double them (growing a slice clears its new
// room, which then is resident).
func (g *Graph) Trim() {
	g.nodes = trimmed(g.nodes)
	g.strs = trimmed(g.strs)
	g.rels = trimmed(g.rels)
	g.extras = trimmed(g.extras)
	g.facts = trimmed(g.facts)
	g.syms.data = trimmed(g.syms.data)
	g.syms.offs = trimmed(g.syms.offs)
	g.names.trim()
	g.in.trim()
	g.stems.trim()
	g.byFact.trim()
}

// room is the capacity Trim leaves for n values.
func room(n int) int { return n + n/8 + 64 }

// trimmed returns xs in an array with room for an eighth more.
func trimmed[T any](xs []T) []T {
	if cap(xs) <= room(len(xs)) {
		return xs
	}
	out := make([]T, len(xs), room(len(xs)))
	copy(out, xs)
	return out
}

func (c *Graph) appendSyms(g *Graph, syms []uint32) sspan {
	s := sspan{off: uint32(len(c.strs)), n: uint32(len(syms))}
	for _, x := range syms {
		c.strs = append(grow(c.strs, 1), c.syms.intern(g.str(x)))
	}
	return s
}

// sortByRelsOff sorts nodes (indexes in ns) by where their relations start.
func sortByRelsOff(is []uint32, ns []node) {
	slices.SortFunc(is, func(a, b uint32) int { return cmp.Compare(ns[a].rels.off, ns[b].rels.off) })
}

// compactAfter is how many notes must have been removed before the graph
// is compacted (and more than it holds): a compaction costs a rebuild.
var compactAfter = 1024
