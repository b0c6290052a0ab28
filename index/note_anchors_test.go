package index

import (
	"fmt"
	"math/rand/v2"
	"path"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/segment"
)

// TestAnchorsMatchMapsOfTerms compares the note builder's anchors with
// the first version (a map of targets to maps of terms), kept here, on
// random links: few and many targets, aliases, embeds, links out of range.
func TestAnchorsMatchMapsOfTerms(t *testing.T) {
	an := analyze.New()
	words := []string{"Coffee", "grinder", "the", "burr", "espresso", "Tokyo", "東京タワー", "café", "of", "notes"}
	rng := rand.New(rand.NewPCG(11, 12))
	sentence := func(n int) string {
		var sb strings.Builder
		for i := range n {
			if i > 0 {
				sb.WriteString([]string{" ", ", ", ". ", "\n"}[rng.IntN(4)])
			}
			sb.WriteString(words[rng.IntN(len(words))])
		}
		return sb.String()
	}
	for round := range 300 {
		var chunks []Chunk
		off := 0
		for range 1 + rng.IntN(4) {
			text := sentence(5 + rng.IntN(80))
			chunks = append(chunks, Chunk{Start: off, End: off + len(text), Text: text})
			off += len(text) + 1
		}
		nTargets := 1 + rng.IntN([]int{3, 40}[round%2])
		var rels []graph.Relation
		for range rng.IntN(60) {
			r := graph.Relation{Type: []string{graph.RelLinksTo, graph.RelEmbeds, graph.RelTagged}[rng.IntN(3)],
				Target: fmt.Sprintf("target %d", rng.IntN(nTargets)), Raw: "dir/" + sentence(2) + ".md", Chunk: rng.IntN(len(chunks)+1) - 1}
			if rng.IntN(3) == 0 {
				r.Alias = sentence(2)
			}
			if rng.IntN(9) == 0 {
				r.Target = ""
			}
			if r.Chunk >= 0 {
				c := chunks[r.Chunk]
				r.Start = c.Start + rng.IntN(len(c.Text)+1)
				r.End = r.Start + rng.IntN(c.End-r.Start+2)
			}
			rels = append(rels, r)
		}
		b := getNoteBuilder(an, analyze.English)
		got := b.anchors("v", rels, chunks)
		b.release()
		want := anchorsByMaps(an, analyze.English, "v", rels, chunks)
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: anchors\n got %v\nwant %v", round, got, want)
		}
	}
}

// anchorsByMaps turns a note's links to other notes into anchor text for their
// targets: the link's words (its alias, or the target's name) and the
// sentence around it.
func anchorsByMaps(an *analyze.Analyzer, lang analyze.Lang, vault string, rels []graph.Relation, chunks []Chunk) []segment.Anchor {
	byTarget := map[string]map[string]*segment.AnchorTerm{}
	for _, r := range rels {
		if r.Type != graph.RelLinksTo && r.Type != graph.RelEmbeds || r.Target == "" {
			continue
		}
		key := vault + "\x00" + r.Target
		terms := byTarget[key]
		if terms == nil {
			terms = map[string]*segment.AnchorTerm{}
			byTarget[key] = terms
		}
		get := func(t string) *segment.AnchorTerm {
			a := terms[t]
			if a == nil {
				a = &segment.AnchorTerm{Text: t}
				terms[t] = a
			}
			return a
		}
		words := r.Alias
		if words == "" {
			words = strings.TrimSuffix(path.Base(r.Raw), path.Ext(r.Raw))
		}
		an.Analyze(words, lang, func(t analyze.Token) { get(t.Term).Link++ })
		if r.Chunk >= 0 && r.Chunk < len(chunks) {
			c := &chunks[r.Chunk]
			s, e := r.Start-c.Start, r.End-c.Start
			if s >= 0 && e <= len(c.Text) && s <= e {
				ls, le := sentenceAround(c.Text, s, e)
				an.Analyze(c.Text[ls:s], lang, func(t analyze.Token) { get(t.Term).Context++ })
				an.Analyze(c.Text[e:le], lang, func(t analyze.Token) { get(t.Term).Context++ })
			}
		}
	}
	keys := make([]string, 0, len(byTarget))
	for k := range byTarget {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]segment.Anchor, 0, len(keys))
	for _, k := range keys {
		a := segment.Anchor{Target: k}
		for _, t := range byTarget[k] {
			a.Terms = append(a.Terms, *t)
		}
		slices.SortFunc(a.Terms, func(x, y segment.AnchorTerm) int { return strings.Compare(x.Text, y.Text) })
		out = append(out, a)
	}
	return out
}
