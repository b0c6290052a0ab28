package reference

import (
	"strings"

	"github.com/ragd/ragd/index/graph"
)

// tally keeps the graph's sizes as notes are added and removed, so that
// Counts answers in O(1) however large the graph; Check recomputes them by
// a walk and reports a disagreement.
type tally struct {
	relations, facts, tags, typed, unresolved int
	// candidates counts, per vault and target, the relations that are
	// unresolved unless the target names a note; unresolved is their sum
	// over the targets that name none.
	candidates map[string]map[string]int
	// mentions counts, per vault and typed entity key, the mentions of it;
	// typed is the number of keys with at least one.
	mentions map[string]map[string]int
}

func newTally() tally {
	return tally{candidates: make(map[string]map[string]int), mentions: make(map[string]map[string]int)}
}

// Counts returns the graph's sizes without walking it; Problem is "".
func (g *Graph) Counts() graph.Stats {
	t := &g.tally
	return graph.Stats{Notes: len(g.docs), Tags: t.tags, Relations: t.relations, Unresolved: t.unresolved,
		Typed: t.typed, Facts: t.facts}
}

// unresolvable reports a relation that is listed as unresolved when its
// target names no note (tags, model mentions and attachments never are).
func unresolvable(r *graph.Relation) bool {
	return r.Type != graph.RelTagged && r.Type != graph.RelMentions && !isAttachment(r.Raw)
}

// named reports whether target resolves to a note of vault.
func (g *Graph) named(vault, target string) bool { return len(g.resolve(vault, target)) > 0 }

// nameAppeared and nameGone keep unresolved right when the first note
// takes a name and when the last one gives it up. Call them after the
// change to g.names.
func (g *Graph) nameAppeared(vault, name string) {
	if !strings.HasPrefix(name, "#") {
		g.tally.unresolved -= g.tally.candidates[vault][name]
	}
}

func (g *Graph) nameGone(vault, name string) {
	if !strings.HasPrefix(name, "#") {
		g.tally.unresolved += g.tally.candidates[vault][name]
	}
}

// countRels adds (sign 1) or removes (sign -1) a note's relations and facts
// from the tally. Call it after the note's names are in g.names (adding)
// or out of it (removing).
func (g *Graph) countRels(d *docNode, sign int) {
	t := &g.tally
	t.relations += sign * len(d.rels)
	t.facts += sign * len(d.facts)
	for i := range d.rels {
		r := &d.rels[i]
		if unresolvable(r) {
			m := t.candidates[d.vault]
			if m == nil {
				m = make(map[string]int)
				t.candidates[d.vault] = m
			}
			if m[r.Target] += sign; m[r.Target] == 0 {
				delete(m, r.Target)
			}
			if !g.named(d.vault, r.Target) {
				t.unresolved += sign
			}
		}
		if r.Type == graph.RelMentions && isTyped(r.Target) {
			m := t.mentions[d.vault]
			if m == nil {
				m = make(map[string]int)
				t.mentions[d.vault] = m
			}
			before := m[r.Target]
			if m[r.Target] += sign; m[r.Target] == 0 {
				delete(m, r.Target)
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
