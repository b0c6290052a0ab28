package index

import (
	"path"
	"slices"
	"strings"

	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/segment"
)

// anchors turns a note's links to other notes into anchor text for their
// targets: the link's words (its alias, or the target's name) and the
// sentence around it. Targets come sorted by key, each one's terms sorted
// by text with their counts summed.
func (b *noteBuilder) anchors(vault string, rels []graph.Relation, chunks []Chunk) []segment.Anchor {
	// Number the targets; group[j] is relation j's, -1 for none.
	var targets []string
	var index map[string]int32 // for many targets
	group := make([]int32, len(rels))
	for j, r := range rels {
		group[j] = -1
		if r.Type != graph.RelLinksTo && r.Type != graph.RelEmbeds || r.Target == "" {
			continue
		}
		t, ok := int32(-1), false
		if index != nil {
			t, ok = index[r.Target]
		} else if i := slices.Index(targets, r.Target); i >= 0 {
			t, ok = int32(i), true
		}
		if !ok {
			t = int32(len(targets))
			targets = append(targets, r.Target)
			if index != nil {
				index[r.Target] = t
			} else if len(targets) > 16 {
				index = make(map[string]int32, 2*len(targets))
				for i, x := range targets {
					index[x] = int32(i)
				}
			}
		}
		group[j] = t
	}
	if len(targets) == 0 {
		return nil
	}
	// The relations of each target, in order (a counting sort).
	start := make([]int32, len(targets)+1)
	for _, t := range group {
		if t >= 0 {
			start[t+1]++
		}
	}
	for t := range targets {
		start[t+1] += start[t]
	}
	next := slices.Clone(start[:len(targets)])
	byTarget := make([]int32, start[len(targets)])
	for j, t := range group {
		if t >= 0 {
			byTarget[next[t]] = int32(j)
			next[t]++
		}
	}
	order := make([]int32, len(targets))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(targets[x], targets[y]) })
	out := make([]segment.Anchor, 0, len(targets))
	for _, t := range order {
		terms := b.anchorTerms(rels, byTarget[start[t]:start[t+1]], chunks)
		out = append(out, segment.Anchor{Target: vault + "\x00" + targets[t], Terms: terms})
	}
	return out
}

// anchorTerms returns the anchor terms of one target: those of the words
// and context of each of its links (relations js, in order), each term once
// with its counts summed, sorted by text.
func (b *noteBuilder) anchorTerms(rels []graph.Relation, js []int32, chunks []Chunk) []segment.AnchorTerm {
	var terms []segment.AnchorTerm
	var byText map[string]int // the terms without an ID
	get := func(tk *analyze.Token) *segment.AnchorTerm {
		if tk.ID == 0 {
			if byText == nil {
				byText = map[string]int{}
			}
			i, ok := byText[tk.Term]
			if !ok {
				i = len(terms)
				byText[tk.Term] = i
				terms = append(terms, segment.AnchorTerm{Text: tk.Term})
			}
			return &terms[i]
		}
		if int(tk.ID) >= len(b.anchorAt) {
			b.anchorAt = append(b.anchorAt, make([]int32, max(analyze.TermIDs(), int(tk.ID)+1)-len(b.anchorAt))...)
		}
		if i := b.anchorAt[tk.ID]; i != 0 {
			return &terms[i-1]
		}
		terms = append(terms, segment.AnchorTerm{Text: tk.Term})
		b.anchorIDs = append(b.anchorIDs, tk.ID)
		b.anchorAt[tk.ID] = int32(len(terms))
		return &terms[len(terms)-1]
	}
	for _, j := range js {
		r := &rels[j]
		words := r.Alias
		if words == "" {
			words = strings.TrimSuffix(path.Base(r.Raw), path.Ext(r.Raw))
		}
		b.an.Analyze(words, b.lang, func(tk analyze.Token) { get(&tk).Link++ })
		if r.Chunk >= 0 && r.Chunk < len(chunks) {
			c := &chunks[r.Chunk]
			s, e := r.Start-c.Start, r.End-c.Start
			if s >= 0 && e <= len(c.Text) && s <= e {
				ls, le := sentenceAround(c.Text, s, e)
				b.an.Analyze(c.Text[ls:s], b.lang, func(tk analyze.Token) { get(&tk).Context++ })
				b.an.Analyze(c.Text[e:le], b.lang, func(tk analyze.Token) { get(&tk).Context++ })
			}
		}
	}
	for _, id := range b.anchorIDs {
		b.anchorAt[id] = 0
	}
	b.anchorIDs = b.anchorIDs[:0]
	slices.SortFunc(terms, func(x, y segment.AnchorTerm) int { return strings.Compare(x.Text, y.Text) })
	return terms
}
