package segment

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestPruningMatchesExhaustiveScoring searches a random corpus, held in
// flushed segment files with deletions and in-memory segments, with
// random queries, and checks that the pruned search returns exactly what
// scoring every note returns, note by note and word by word: the same
// notes, scores, passages and counts, in the same order.
func TestPruningMatchesExhaustiveScoring(t *testing.T) {
	notes := randomNotes(11, 600)
	s, _, err := OpenSet(Options{Dir: t.TempDir(), FlushBytes: 32 << 10, MergeFactor: 4, FlushAfter: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	seq := uint64(0)
	for i := 0; i < len(notes); i += 40 {
		seq++
		s.Apply(seq, nil, notes[i:min(i+40, len(notes))])
		if i >= 120 {
			seq++ // replace some notes, delete others
			s.Apply(seq, []uint64{notes[i-100].ID}, []*Note{notes[i-50], notes[i-110]})
		}
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	seq++
	s.Apply(seq, nil, notes[5:40]) // and some in memory again
	v := s.View()
	defer v.Release()
	if len(v.segs) < 2 {
		t.Fatalf("%d segments, want several", len(v.segs))
	}
	files := 0
	for _, ss := range v.segs {
		if ss.seg.Name() != "" {
			files++
		}
	}
	if files == 0 {
		t.Fatal("no segment was flushed to a file")
	}

	resolve := resolverOf(notes)
	r := rand.New(rand.NewPCG(5, 5))
	var pruned, exhaustive searchStats
	for qi := range 120 {
		q := Query{K: []int{1, 3, 10, 30, 100}[r.IntN(5)], Passages: r.IntN(3)}
		for i := range 1 + r.IntN(6) {
			g := Group{Terms: []string{fmt.Sprintf("w%02d", r.IntN(40))}, Pos: i}
			if r.IntN(5) == 0 {
				g.Terms = append(g.Terms, fmt.Sprintf("w%02d", r.IntN(40)))
			}
			if r.IntN(8) == 0 {
				g.Phrase = 1
			}
			q.Groups = append(q.Groups, g)
		}
		if r.IntN(2) == 0 {
			q.Resolve = resolve
		}
		if r.IntN(6) == 0 {
			q.Filter = func(_, path string) bool { return !strings.HasPrefix(path, "dir1/") }
		}
		p := DefaultParams
		if r.IntN(4) == 0 {
			p.Proximity = 0
		}
		want := q
		want.exhaustive, want.stats = true, &exhaustive
		got := q
		got.prune, got.stats = true, &pruned
		w, g, tw := v.Search(want, p), v.Search(got, p), v.Search(q, p)
		if !reflect.DeepEqual(tw, w) {
			t.Fatalf("query %d (%+v, k %d): term-at-a-time search\n%+v\nwant\n%+v", qi, q.Groups, q.K, tw, w)
		}
		if len(w) == 0 && q.Resolve == nil && len(q.Groups) > 1 {
			t.Fatalf("query %d found nothing: the corpus does not exercise the search", qi)
		}
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("query %d (%+v, k %d): pruned search\n%+v\nwant\n%+v", qi, q.Groups, q.K, g, w)
		}
	}
	if pruned.scored >= exhaustive.scored*9/10 {
		t.Errorf("pruning scored %d notes, exhaustive scoring %d: it should skip a good share", pruned.scored, exhaustive.scored)
	}
	t.Logf("notes scored: pruned %d, exhaustive %d", pruned.scored, exhaustive.scored)
}
