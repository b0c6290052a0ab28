package segment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestStreamMatchesWordByWord searches a random corpus, held in flushed
// segment files with deletions and in-memory segments, with random
// queries, and checks that the streaming scorer (one pass over the words'
// postings merged in chunk order) returns what scoring word by word
// returns: the same notes, scores, passages and counts, in the same order.
// The only difference allowed is a float32 rounding in a score, from the
// order in which a note's chunks are summed for its whole note.
func TestStreamMatchesWordByWord(t *testing.T) {
	notes := randomNotes(11, 600)
	s := openTestSet(t, Options{FlushBytes: 32 << 10, MergeFactor: 4, FlushAfter: time.Hour})
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
	exact, proxChecked := 0, 0
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
		if r.IntN(2) == 0 {
			p.ProxDepth = 5
		}
		w, g := v.SearchWordByWord(q, p), v.Search(q, p)
		// And the same with the segments cut into ranges of a few notes,
		// scored by several workers at once.
		rangePostings = 16
		gc := v.Search(q, p)
		rangePostings = 16 << 10
		if !reflect.DeepEqual(gc, g) {
			t.Fatalf("query %d (%+v, k %d): streaming search in ranges\n%+v\nin one pass\n%+v", qi, q.Groups, q.K, gc, g)
		}
		// And the same with the segments' anchor postings summed by
		// several workers at once.
		anchorParallel = 0
		gp := v.Search(q, p)
		anchorParallel = 16 << 10
		if !reflect.DeepEqual(gp, g) {
			t.Fatalf("query %d (%+v, k %d): anchors summed at once\n%+v\none segment after another\n%+v", qi, q.Groups, q.K, gp, g)
		}
		// And the same with every segment's postings decoded ahead of use
		// and their rows prefetched (rows.go), in one pass and in ranges
		// (which skip to a range's first chunk, as deleted notes do).
		prefetchChunks = 0
		ga := v.Search(q, p)
		rangePostings = 16
		gac := v.Search(q, p)
		rangePostings, prefetchChunks = 16<<10, 1<<17
		if !reflect.DeepEqual(ga, g) || !reflect.DeepEqual(gac, g) {
			t.Fatalf("query %d (%+v, k %d): with postings decoded ahead\n%+v\nin ranges\n%+v\nwithout\n%+v", qi, q.Groups, q.K, ga, gac, g)
		}
		// Keep returns the head of what K ranks, fewer or more than the
		// notes proximity rescores.
		for _, keep := range []int{2, 8} {
			kq := q
			kq.Keep = keep
			if kept, want := v.Search(kq, p), g[:min(keep, len(g))]; !reflect.DeepEqual(kept, want) {
				t.Fatalf("query %d (%+v, k %d, keep %d):\n%+v\nwant\n%+v", qi, q.Groups, q.K, keep, kept, want)
			}
		}
		// Proximity rescores the best ProxDepth notes: they are the best
		// ProxDepth without it, reordered, and the others are as without it.
		if p.Proximity > 0 && !quotes(q) && len(q.Groups) > 1 && q.K > p.ProxDepth {
			proxChecked++
			np := p
			np.Proximity = 0
			plain := v.Search(q, np)
			head := min(p.ProxDepth, len(plain))
			in := map[uint64]bool{}
			for _, h := range plain[:head] {
				in[h.ID] = true
			}
			for _, h := range g[:head] {
				if !in[h.ID] {
					t.Fatalf("query %d (%+v, k %d): note %x rescored by proximity is not among the best %d without it", qi, q.Groups, q.K, h.ID, head)
				}
			}
			if !reflect.DeepEqual(g[head:], plain[head:]) {
				t.Fatalf("query %d (%+v, k %d): the notes below the best %d differ with proximity\n%+v\nwithout\n%+v", qi, q.Groups, q.K, head, g[head:], plain[head:])
			}
		}
		if len(w) == 0 && q.Resolve == nil && len(q.Groups) > 1 {
			t.Fatalf("query %d found nothing: the corpus does not exercise the search", qi)
		}
		if reflect.DeepEqual(g, w) {
			exact++
			continue
		}
		if !nearHits(g, w) {
			t.Fatalf("query %d (%+v, k %d): streaming search\n%+v\nword by word\n%+v", qi, q.Groups, q.K, g, w)
		}
	}
	t.Logf("%d of 120 queries bit for bit the same", exact)
	if proxChecked < 5 {
		t.Fatalf("proximity's depth checked on %d queries: the corpus does not exercise it", proxChecked)
	}
}

func quotes(q Query) bool {
	for _, g := range q.Groups {
		if g.Phrase > 0 {
			return true
		}
	}
	return false
}

// nearHits reports whether two searches found the same notes, passages
// and counts in the same order, with scores equal but for float32
// rounding.
func nearHits(a, b []NoteHit) bool {
	if len(a) != len(b) {
		return false
	}
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-6*max(math.Abs(x), math.Abs(y), 1) }
	for i := range a {
		x, y := a[i], b[i]
		if x.ID != y.ID || x.Matched != y.Matched || x.Ref != y.Ref || !near(x.Score, y.Score) || !near(x.Max, y.Max) ||
			len(x.More) != len(y.More) {
			return false
		}
		hx, hy := append([]ChunkHit{x.Best}, x.More...), append([]ChunkHit{y.Best}, y.More...)
		for j := range hx {
			cx, cy := hx[j], hy[j]
			if cx.Ord != cy.Ord || cx.Parent != cy.Parent || cx.LineStart != cy.LineStart || cx.LineEnd != cy.LineEnd || !near(cx.Score, cy.Score) {
				return false
			}
		}
	}
	return true
}
