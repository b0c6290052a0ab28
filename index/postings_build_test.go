package index

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/chunk"
)

// Prepare's postings equal a plain count per chunk, term by term.
func TestPreparedPostingsMatchAPlainCount(t *testing.T) {
	an := analyze.New()
	src := "---\ntitle: Restic backups\n---\n# Restic backups\n\nBackups of the backup server run nightly.\n\n" +
		"## Pruning\n\n" + strings.Repeat("Prune old snapshots; keep the restic repository small. ", 60) +
		"\n\n## Restore\n\nRestore a snapshot with restic restore, then check the backup.\n"
	cd, err := chunk.Markdown([]byte(src), chunk.Options{ChildChars: 300})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // pooled builders must not carry anything over
		p := Prepare(an, Document{Path: "restic.md"}, cd, "restic")
		want := map[string][]posting{}
		for i, c := range cd.Chunks {
			counts := map[string]*posting{}
			get := func(t string) *posting {
				if counts[t] == nil {
					counts[t] = &posting{ord: uint32(i)}
				}
				return counts[t]
			}
			an.Terms(p.Doc.Title, func(t string) { get(t).title++ })
			for _, h := range headingsBelowTitle(c.Heading, p.Doc.Title) {
				an.Terms(h, func(t string) { get(t).head++ })
			}
			an.Terms(c.Text, func(t string) { get(t).body++ })
			for t, e := range counts {
				want[t] = append(want[t], *e)
			}
		}
		terms := make([]string, 0, len(want))
		for term := range want {
			terms = append(terms, term)
		}
		slices.Sort(terms)
		if !reflect.DeepEqual(p.fwd.terms, terms) {
			t.Fatalf("terms %q, want %q", p.fwd.terms, terms)
		}
		for i, term := range terms {
			if !reflect.DeepEqual(p.fwd.postings[i], want[term]) {
				t.Errorf("%s: %v, want %v", term, p.fwd.postings[i], want[term])
			}
		}
	}
}
