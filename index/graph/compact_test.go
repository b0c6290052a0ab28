package graph_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/graph/internal/reference"
)

// randomNote is a note of a random vault: links (resolved, unresolved,
// through aliases, to headings), embeds, Markdown links, tags, attachments.
func randomNote(rng *rand.Rand, i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\naliases: [alias%d, Shared Name]\ntags: [t%d]\nrelated: \"[[n%d]]\"\n---\n# Note %d\n\n",
		rng.IntN(6), rng.IntN(4), rng.IntN(20), i)
	for range rng.IntN(10) {
		switch rng.IntN(9) {
		case 0:
			fmt.Fprintf(&b, "See [[n%d]] and [[n%d#Part]].\n\n", rng.IntN(24), rng.IntN(24)) // n20… never exist
		case 1:
			fmt.Fprintf(&b, "As [[alias%d|an alias]].\n\n", rng.IntN(7))
		case 2:
			fmt.Fprintf(&b, "Tagged #x%d and #t%d.\n\n", rng.IntN(4), rng.IntN(4))
		case 3:
			fmt.Fprintf(&b, "![[pic%d.png]] ![[n%d]]\n\n", rng.IntN(3), rng.IntN(20))
		case 4:
			fmt.Fprintf(&b, "A [link](n%d.md) and [[shared name]].\n\n", rng.IntN(24))
		case 5:
			fmt.Fprintf(&b, "## Part %d\n\nSection text [[#Part %d]].\n\n", rng.IntN(3), rng.IntN(3))
		default:
			b.WriteString("Plain text about restic backups and the zfs pool.\n\n")
		}
	}
	return b.String()
}

func randomRecord(t *testing.T, rng *rand.Rand, i int) (rel, title string, chunks int, rec graph.Record) {
	terms := func(s string) []string { return strings.Fields(strings.ToLower(s)) }
	rel = fmt.Sprintf("n%d.md", i)
	if i%5 == 0 {
		rel = fmt.Sprintf("sub/n%d.md", i)
	}
	cd, err := chunk.Markdown([]byte(randomNote(rng, i)), chunk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rec = graph.Build(terms, rel, cd.Title, cd)
	if rng.IntN(3) == 0 && len(cd.Chunks) > 0 {
		rec.AddEnrichment(terms, &graph.Enrichment{
			Entities: []graph.EnrichedEntity{{Name: fmt.Sprintf("Person %d", rng.IntN(3)), Type: "PERSON", Line: 1, Aliases: []string{"P"}},
				{Name: "Acme", Type: "ORGANIZATION", Line: 1, Confidence: 0.5}},
			Facts: []graph.EnrichedFact{{Subject: "Acme", Predicate: "employs", Object: "Person 1", Line: 1, Confidence: 0.75}},
		}, cd.Chunks)
	}
	return rel, cd.Title, len(cd.Chunks), rec
}

// canon is a value as JSON with its list's elements sorted, for answers
// whose order is free among ties.
func canon[T any](t *testing.T, xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		b, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = string(b)
	}
	sort.Strings(out)
	return out
}

type answerer interface {
	Backlinks(vault, note string) ([]graph.LinkRef, error)
	Links(vault, note string) ([]graph.LinkRef, error)
	Unresolved(vault string) []graph.LinkRef
	Entities(vault, typ string) []graph.EntityInfo
	Neighbors(vault, entity string, hops int) ([]graph.EntityInfo, error)
	FindNotes(vault, name string) ([]graph.NoteRef, error)
	Search(terms []string) (map[graph.ChunkRef]float64, []graph.Match)
	Linkers(terms []string, embeds bool) (map[graph.ChunkRef]float64, []graph.Match, []graph.DocID)
	Embedded(inScope func(vault, path string) bool) map[[2]string]bool
	Resolve(vault, target string) []graph.DocID
	Counts() graph.Stats
	Check() graph.Stats
	Len() int
}

// answers asks g every query the daemon asks, in canonical form.
func answers(t *testing.T, g answerer) map[string]any {
	out := map[string]any{}
	errText := func(err error) string {
		if err != nil {
			return err.Error()
		}
		return ""
	}
	notes := []string{"n1", "N2.md", "sub/n5", "n5", "alias1", "shared name", "Note 3", "n21", "nothing"}
	for _, vault := range []string{"", "a", "b"} {
		for _, n := range notes {
			bl, err := g.Backlinks(vault, n)
			out["backlinks "+vault+" "+n] = []any{canon(t, bl), errText(err)}
			ls, err := g.Links(vault, n)
			out["links "+vault+" "+n] = []any{ls, errText(err)}
			if vault == "" { // notes of the same path in two vaults: either first
				out["links "+vault+" "+n] = []any{canon(t, ls), errText(err)}
			}
			fn, err := g.FindNotes(vault, n)
			out["find "+vault+" "+n] = []any{canon(t, fn), errText(err)}
			for hops := 1; hops <= 3; hops++ {
				nb, err := g.Neighbors(vault, n, hops)
				out[fmt.Sprint("neighbors ", vault, n, hops)] = []any{nb, errText(err)}
			}
		}
		for _, e := range []string{"#t1", "#x2", "#nope", "@acme", "@person 1", "@nobody"} {
			nb, err := g.Neighbors(vault, e, 2)
			out["neighbors "+vault+" "+e] = []any{nb, errText(err)}
		}
		out["unresolved "+vault] = canon(t, g.Unresolved(vault))
		for _, typ := range []string{"", graph.EntityNote, graph.EntityTag, "person", "ORGANIZATION"} {
			out["entities "+vault+" "+typ] = g.Entities(vault, typ)
		}
		for _, name := range []string{"n1", "alias2", "shared name", "#t1", "sub/n5", "zzz"} {
			ids := slices.Clone(g.Resolve(vault, name))
			slices.Sort(ids)
			out["resolve "+vault+" "+name] = ids
		}
	}
	for _, q := range []string{"n1", "n2 and alias3", "shared name notes", "restic person 1", "acme", "t1 x2", "which notes link to n3"} {
		terms := strings.Fields(q)
		sc, ms := g.Search(terms)
		out["search "+q] = []any{fmt.Sprint(sc), canon(t, ms)}
		for _, embeds := range []bool{false, true} {
			sc, ms, subj := g.Linkers(terms, embeds)
			slices.Sort(subj)
			out[fmt.Sprint("linkers ", q, embeds)] = []any{fmt.Sprint(sc), canon(t, ms), subj}
		}
	}
	out["embedded"] = fmt.Sprint(g.Embedded(func(vault, path string) bool { return vault == "a" || strings.HasPrefix(path, "sub/") }))
	out["counts"] = g.Counts()
	out["check"] = g.Check()
	out["len"] = g.Len()
	return out
}

// The compact graph answers every query as the graph held as maps of
// structs did (package reference), built from the same random records
// through random adds, re-adds and removals in two vaults, and through
// compactions and trims.
func TestCompactGraphAnswersAsTheReference(t *testing.T) {
	defer graph.SetCompactAfter(6)()
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 7))
		g, ref := graph.New(), reference.New()
		live := map[graph.DocID]bool{}
		namesOnly := map[graph.DocID]graph.Record{}
		for step := range 100 {
			id := graph.DocID(rng.IntN(30))
			if live[id] {
				g.Remove(id)
				ref.Remove(id)
				delete(live, id)
				delete(namesOnly, id)
			}
			// a note's id names its vault and path, as the index's do
			vault := []string{"a", "b"}[id/15]
			switch rng.IntN(5) {
			case 0: // stays removed
			case 1: // names now, relations later (as the load does)
				rel, title, chunks, rec := randomRecord(t, rng, int(id)%15)
				g.AddNames(id, vault, rel, title, chunks, rec.Names)
				ref.AddNames(id, vault, rel, title, chunks, rec.Names)
				live[id] = true
				namesOnly[id] = rec
			default:
				rel, title, chunks, rec := randomRecord(t, rng, int(id)%15)
				g.Add(id, vault, rel, title, chunks, &rec)
				ref.Add(id, vault, rel, title, chunks, &rec)
				live[id] = true
			}
			if step%11 == 0 {
				g.Trim() // as after a load or a large pass: changes nothing a query sees
			}
			if step%7 == 0 {
				for id, rec := range namesOnly {
					g.AddRelations(id, &rec)
					ref.AddRelations(id, &rec)
					delete(namesOnly, id)
				}
			}
			if len(namesOnly) > 0 || step%3 != 0 {
				continue // (until the relations are added, only the reference's Check is meaningful)
			}
			want, got := answers(t, ref), answers(t, g)
			if st := got["check"].(graph.Stats); st.Problem != "" {
				t.Fatalf("seed %d step %d: %s", seed, step, st.Problem)
			}
			for k, w := range want {
				if !reflect.DeepEqual(got[k], w) {
					t.Fatalf("seed %d step %d: %s:\n got %v\nwant %v", seed, step, k, got[k], w)
				}
			}
		}
		if g.Compactions() == 0 {
			t.Errorf("seed %d: the graph was never compacted", seed)
		}
	}
}
