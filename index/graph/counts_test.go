package graph

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ragd/ragd/index/chunk"
)

// The sizes Counts keeps as notes come and go equal the sizes a walk of the
// graph counts (Check compares them), through random writes that resolve
// and unresolve links, share names and aliases, and add and drop tags and
// model mentions.
func TestCountsFollowRandomWrites(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	terms := func(s string) []string { return strings.Fields(strings.ToLower(s)) }
	note := func(i int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "---\naliases: [alias%d]\ntags: [t%d]\n---\n# Note %d\n\n", rng.IntN(4), rng.IntN(3), i)
		for range rng.IntN(6) {
			switch rng.IntN(6) {
			case 0:
				fmt.Fprintf(&b, "See [[n%d]].\n\n", rng.IntN(12)) // n10, n11 never exist
			case 1:
				fmt.Fprintf(&b, "As [[alias%d|an alias]].\n\n", rng.IntN(5))
			case 2:
				fmt.Fprintf(&b, "Tagged #x%d.\n\n", rng.IntN(3))
			case 3:
				fmt.Fprintf(&b, "![[pic%d.png]]\n\n", rng.IntN(2))
			case 4:
				fmt.Fprintf(&b, "A [link](n%d.md).\n\n", rng.IntN(12))
			default:
				b.WriteString("Plain text.\n\n")
			}
		}
		return b.String()
	}
	g := New()
	live := map[int]bool{}
	var most Stats // the largest of each size seen
	for step := range 400 {
		i := rng.IntN(10)
		if live[i] {
			g.Remove(DocID(i))
			delete(live, i)
		}
		if rng.IntN(4) > 0 {
			rel := fmt.Sprintf("n%d.md", i)
			cd, err := chunk.Markdown([]byte(note(i)), chunk.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rec := Build(terms, rel, cd.Title, cd)
			if rng.IntN(3) == 0 && len(cd.Chunks) > 0 {
				rec.AddEnrichment(terms, &Enrichment{
					Entities: []EnrichedEntity{{Name: fmt.Sprintf("Person %d", rng.IntN(3)), Type: "PERSON", Line: 1},
						{Name: "Acme", Type: "ORGANIZATION", Line: 1}},
					Facts: []EnrichedFact{{Subject: "Acme", Predicate: "employs", Object: "Person 1", Line: 1}},
				}, cd.Chunks)
			}
			g.Add(DocID(i), "v", rel, cd.Title, len(cd.Chunks), &rec)
			live[i] = true
		}
		st := g.Check()
		if st.Problem != "" {
			t.Fatalf("step %d: %s", step, st.Problem)
		}
		most = Stats{Unresolved: max(most.Unresolved, st.Unresolved), Tags: max(most.Tags, st.Tags),
			Typed: max(most.Typed, st.Typed), Facts: max(most.Facts, st.Facts)}
	}
	if most.Unresolved == 0 || most.Tags == 0 || most.Typed == 0 || most.Facts == 0 {
		t.Errorf("the writes exercised too little: at most %+v", most)
	}
}
