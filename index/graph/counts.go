package graph

// tally keeps the graph's sizes as notes are added and removed, so that
// Counts answers in O(1) however large the graph; Check recomputes them by
// a walk and reports a disagreement.
type tally struct {
	relations, facts, tags, typed, unresolved int
	// candidates counts, per (vault, target), the relations that are
	// unresolved unless the target names a note; unresolved is their sum
	// over the targets that name none.
	candidates map[uint64]int32
	// mentions counts, per (vault, typed entity key), the mentions of it;
	// typed is the number of keys with at least one.
	mentions map[uint64]int32
}

func newTally() tally {
	return tally{candidates: make(map[uint64]int32), mentions: make(map[uint64]int32)}
}

// Counts returns the graph's sizes without walking it; Problem is "".
func (g *Graph) Counts() Stats {
	t := &g.tally
	return Stats{Notes: len(g.docs), Tags: t.tags, Relations: t.relations, Unresolved: t.unresolved,
		Typed: t.typed, Facts: t.facts}
}

// unresolvable reports a relation that is listed as unresolved when its
// target names no note (tags, model mentions and attachments never are).
func (g *Graph) unresolvable(r *crel) bool {
	return r.typ != symTagged && r.typ != symMentions && !isAttachment(g.str(r.raw))
}

// named reports whether target resolves to a note of vault.
func (g *Graph) named(vault, target uint32) bool { return len(g.resolve(vault, target)) > 0 }

// nameAppeared and nameGone keep unresolved right when the first note
// takes a name and when the last one gives it up. Call them after the
// change to g.names.
func (g *Graph) nameAppeared(vault, name uint32) {
	if !g.isTag(name) {
		g.tally.unresolved -= int(g.tally.candidates[pair(vault, name)])
	}
}

func (g *Graph) nameGone(vault, name uint32) {
	if !g.isTag(name) {
		g.tally.unresolved += int(g.tally.candidates[pair(vault, name)])
	}
}

// countRels adds (sign 1) or removes (sign -1) a note's relations and facts
// from the tally. Call it after the note's names are in g.names (adding)
// or out of it (removing).
func (g *Graph) countRels(n *node, sign int) {
	t := &g.tally
	t.relations += sign * int(n.rels.n)
	t.facts += sign * int(n.facts.n)
	for _, r := range g.relsOf(n) {
		k := pair(n.vault, r.target)
		if g.unresolvable(&r) {
			if t.candidates[k] += int32(sign); t.candidates[k] == 0 {
				delete(t.candidates, k)
			}
			if !g.named(n.vault, r.target) {
				t.unresolved += sign
			}
		}
		if r.typ == symMentions && isTyped(g.str(r.target)) {
			before := t.mentions[k]
			if t.mentions[k] += int32(sign); t.mentions[k] == 0 {
				delete(t.mentions, k)
			}
			switch {
			case before == 0 && sign > 0:
				t.typed++
			case before == 1 && sign < 0:
				t.typed--
			}
		}
	}
}
