package segment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
)

// randomNotes makes n notes over a small vocabulary, with chunk, note
// field and anchor occurrences, deterministic in seed.
func randomNotes(seed uint64, n int) []*Note {
	r := rand.New(rand.NewPCG(seed, 7))
	vocab := make([]string, 40)
	for i := range vocab {
		vocab[i] = fmt.Sprintf("w%02d", i)
	}
	word := func() string { return vocab[int(math.Sqrt(float64(r.IntN(len(vocab)*len(vocab)))))] }
	notes := make([]*Note, n)
	for i := range notes {
		id := r.Uint64()
		nc := 1 + r.IntN(4)
		note := &Note{ID: id, Vault: "v", Path: fmt.Sprintf("dir%d/note%03d.md", i%3, i), Title: fmt.Sprintf("Note %d", i),
			MTime: int64(i), Headings: [][]string{{"H"}, {"H", "Sub"}}, Tags: []string{"t"}}
		if i%2 == 1 {
			note.Aliases = []string{fmt.Sprintf("Alias %d", i), "a/b"}
		}
		terms := map[string]*Term{}
		get := func(w string) *Term {
			t := terms[w]
			if t == nil {
				t = &Term{Text: w}
				terms[w] = t
			}
			return t
		}
		for f := range NoteFields {
			l := r.IntN(4)
			note.FieldLen[f] = uint32(l)
			for range l {
				get(word()).Note[f]++
			}
		}
		for c := range nc {
			ch := Chunk{Parent: uint32(c % 2), LineStart: uint32(1 + 10*c), LineEnd: uint32(9 + 10*c), Hash: r.Uint64() % 50}
			body, head := 3+r.IntN(30), r.IntN(3)
			ch.Body, ch.Head = uint32(body), uint32(head)
			for p := range body {
				t := get(word())
				if len(t.Postings) == 0 || t.Postings[len(t.Postings)-1].Ord != uint32(c) {
					t.Postings = append(t.Postings, Posting{Ord: uint32(c)})
				}
				ps := &t.Postings[len(t.Postings)-1]
				ps.Body++
				ps.Pos = append(ps.Pos, uint32(p))
			}
			for range head {
				t := get(word())
				if len(t.Postings) == 0 || t.Postings[len(t.Postings)-1].Ord != uint32(c) {
					t.Postings = append(t.Postings, Posting{Ord: uint32(c)})
				}
				t.Postings[len(t.Postings)-1].Head++
			}
			note.Chunks = append(note.Chunks, ch)
		}
		for _, t := range terms {
			note.Terms = append(note.Terms, *t)
		}
		slices.SortFunc(note.Terms, func(a, b Term) int { return strings.Compare(a.Text, b.Text) })
		for range r.IntN(3) {
			note.Anchors = append(note.Anchors, Anchor{Target: fmt.Sprintf("note%03d", r.IntN(n)),
				Terms: []AnchorTerm{{Text: word(), Link: 1}, {Text: word(), Context: 1}}})
		}
		notes[i] = note
	}
	return notes
}

// refSearch scores notes directly from their records with the formula of
// search.go (no proximity).
func refSearch(notes []*Note, groups []Group, k int, p Params, resolve func(string) []uint64) []NoteHit {
	var N, sumBody, sumHead, sumTitle float64
	var sumNote [NoteFields]float64
	byID := map[uint64]*Note{}
	for _, n := range notes {
		byID[n.ID] = n
		for _, c := range n.Chunks {
			N++
			sumBody += float64(c.Body)
			sumHead += float64(c.Head)
			sumTitle += float64(n.FieldLen[FieldTitle])
		}
		for f := range NoteFields {
			sumNote[f] += float64(n.FieldLen[f])
		}
	}
	avgW := (p.Title*sumTitle + p.Heading*sumHead + p.Body*sumBody) / N
	term := func(n *Note, t string) *Term {
		i, ok := slices.BinarySearchFunc(n.Terms, t, func(a Term, b string) int { return strings.Compare(a.Text, b) })
		if !ok {
			return nil
		}
		return &n.Terms[i]
	}
	idf := make([]float64, len(groups))
	for g, gr := range groups {
		df := 0.0
		for _, n := range notes {
			for _, t := range gr.Terms {
				if tt := term(n, t); tt != nil {
					df += float64(tt.df(len(n.Chunks)))
				}
			}
		}
		if df > 0 {
			d := min(df, N)
			idf[g] = math.Log(1 + (N-d+0.5)/(d+0.5))
		}
	}
	anchor := map[uint64][]float64{}
	if resolve != nil {
		for _, src := range notes {
			for _, a := range src.Anchors {
				for _, id := range resolve(a.Target) {
					if id == src.ID {
						continue
					}
					for _, at := range a.Terms {
						for g, gr := range groups {
							if slices.Contains(gr.Terms, at.Text) {
								if anchor[id] == nil {
									anchor[id] = make([]float64, len(groups))
								}
								anchor[id][g] += p.Anchor*float64(at.Link) + p.AnchorContext*float64(at.Context)
							}
						}
					}
				}
			}
		}
	}
	var hits []NoteHit
	for _, n := range notes {
		best := -1.0
		bestOrd := -1
		matched := false
		G := len(groups)
		x0s := make([][]float64, len(n.Chunks))
		xs := make([][]float64, len(n.Chunks))
		sum := make([]float64, G)
		for ord, c := range n.Chunks {
			bc := 1 - p.B + p.B*(p.Title*float64(n.FieldLen[FieldTitle])+p.Heading*float64(c.Head)+p.Body*float64(c.Body))/avgW
			score := 0.0
			own := false
			x0s[ord], xs[ord] = make([]float64, G), make([]float64, G)
			for g, gr := range groups {
				var tv, rv, x float64
				for _, t := range gr.Terms {
					tt := term(n, t)
					if tt == nil {
						continue
					}
					tv += p.Title * float64(tt.Note[FieldTitle])
					for f, w := range [...]float64{FieldAlias: p.Alias, FieldProps: p.Props, FieldTags: p.Tags} {
						if f != FieldTitle && tt.Note[f] > 0 {
							rv += w * float64(tt.Note[f]) / (1 - p.BNote + p.BNote*float64(n.FieldLen[f])/(sumNote[f]/float64(len(notes))))
						}
					}
					for _, ps := range tt.Postings {
						if ps.Ord == uint32(ord) {
							x += (p.Body*float64(ps.Body) + p.Heading*float64(ps.Head)) / bc
							own = true
						}
					}
				}
				if a := anchor[n.ID]; a != nil {
					rv += a[g]
				}
				x0s[ord][g], xs[ord][g] = tv/bc+rv, x
				if x0s[ord][g]+x > 0 {
					score += idf[g] * sat(x0s[ord][g]+x, p.K1)
				}
			}
			if score > 0 {
				matched = true
			}
			if own {
				for g := range G {
					sum[g] += xs[ord][g]
				}
			}
			if (own || ord == 0 && score > 0) && score > best {
				best, bestOrd = score, ord
			}
		}
		if !matched || best <= 0 {
			continue
		}
		score := best
		if p.NoteBM25 > 0 {
			l := p.Title * float64(n.FieldLen[FieldTitle])
			for _, c := range n.Chunks {
				l += p.Heading*float64(c.Head) + p.Body*float64(c.Body)
			}
			avg := (p.Title*sumTitle/N*float64(len(notes)) + p.Heading*sumHead + p.Body*sumBody) / float64(len(notes))
			bn := 1 - p.B + p.B*l/avg
			whole := 0.0
			for g, gr := range groups {
				x := 0.0
				for _, t := range gr.Terms {
					tt := term(n, t)
					if tt == nil {
						continue
					}
					x += p.Title * float64(tt.Note[FieldTitle]) / bn
					for _, ps := range tt.Postings {
						x += (p.Body*float64(ps.Body) + p.Heading*float64(ps.Head)) / bn
					}
				}
				bc0 := 1 - p.B + p.B*(p.Title*float64(n.FieldLen[FieldTitle])+p.Heading*float64(n.Chunks[bestOrd].Head)+p.Body*float64(n.Chunks[bestOrd].Body))/avgW
				x += x0s[bestOrd][g] - tvOf(n, gr, p)/bc0
				if x > 0 {
					whole += idf[g] * sat(x, p.K1)
				}
			}
			score += p.NoteBM25 * whole
		}
		hits = append(hits, NoteHit{ID: n.ID, Score: score, Best: ChunkHit{Ord: uint32(bestOrd)}})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].ID < hits[j].ID
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

// tvOf is a group's weighted title frequency in note n.
func tvOf(n *Note, gr Group, p Params) float64 {
	tv := 0.0
	for _, t := range gr.Terms {
		for _, tt := range n.Terms {
			if tt.Text == t {
				tv += p.Title * float64(tt.Note[FieldTitle])
			}
		}
	}
	return tv
}

func viewOf(t *testing.T, parts ...[]*Note) *View {
	t.Helper()
	v := &View{}
	for _, notes := range parts {
		seg, err := Open(Build(notes))
		if err != nil {
			t.Fatal(err)
		}
		if err := seg.Verify(); err != nil {
			t.Fatal(err)
		}
		v.segs = append(v.segs, &segState{seg: seg, live: seg.notes})
	}
	v.stats = statsOf(v.segs)
	return v
}

func sameHits(t *testing.T, what string, got, want []NoteHit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-4*math.Max(1, want[i].Score) {
			t.Fatalf("%s: hit %d = %x %.6f, want %x %.6f", what, i, got[i].ID, got[i].Score, want[i].ID, want[i].Score)
		}
	}
}

var testParams = func() Params { p := DefaultParams; p.Proximity = 0; return p }()

func queries() [][]Group {
	return [][]Group{
		{{Terms: []string{"w00"}}},
		{{Terms: []string{"w03"}, Pos: 0}, {Terms: []string{"w07"}, Pos: 1}},
		{{Terms: []string{"w12"}}, {Terms: []string{"w30", "w31"}, Pos: 1}, {Terms: []string{"w39"}, Pos: 2}},
		{{Terms: []string{"nosuchterm"}}},
		{{Terms: []string{"w01"}}, {Terms: []string{"w01"}, Pos: 1}},
	}
}

// resolverOf resolves an anchor target key to the notes named so.
func resolverOf(notes []*Note) func(key string) []uint64 {
	return func(key string) []uint64 {
		var ids []uint64
		for _, n := range notes {
			if strings.HasSuffix(strings.TrimSuffix(n.Path, ".md"), "/"+key) {
				ids = append(ids, n.ID)
			}
		}
		return ids
	}
}

func TestSearchMatchesReference(t *testing.T) {
	notes := randomNotes(1, 200)
	resolve := resolverOf(notes)
	one := viewOf(t, notes)
	three := viewOf(t, notes[:50], notes[50:120], notes[120:])
	for qi, q := range queries() {
		for _, res := range []func(string) []uint64{nil, resolve} {
			want := refSearch(notes, q, 20, testParams, res)
			sameHits(t, fmt.Sprintf("query %d, one segment", qi), one.Search(Query{Groups: q, K: 20, Resolve: res}, testParams), want)
			sameHits(t, fmt.Sprintf("query %d, three segments", qi), three.Search(Query{Groups: q, K: 20, Resolve: res}, testParams), want)
		}
	}
}

func TestMergeAndDeletionsMatchAFreshBuild(t *testing.T) {
	notes := randomNotes(2, 150)
	v := viewOf(t, notes[:60], notes[60:])
	var dropped []uint64
	var kept []*Note
	for i, n := range notes {
		if i%4 == 1 {
			dropped = append(dropped, n.ID)
		} else {
			kept = append(kept, n)
		}
	}
	v.delete(dropped)
	fresh := viewOf(t, kept)
	if v.stats != fresh.stats {
		t.Fatalf("stats after deletions %+v, fresh %+v", v.stats, fresh.stats)
	}
	merged, err := Open(merge([]mergeInput{{v.segs[0].seg, v.segs[0].del}, {v.segs[1].seg, v.segs[1].del}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := merged.Verify(); err != nil {
		t.Fatal(err)
	}
	mv := &View{segs: []*segState{{seg: merged, live: merged.notes}}}
	mv.stats = statsOf(mv.segs)
	for qi, q := range queries() {
		want := fresh.Search(Query{Groups: q, K: 30}, testParams)
		sameHits(t, fmt.Sprintf("query %d with deletions", qi), v.Search(Query{Groups: q, K: 30}, testParams), want)
		sameHits(t, fmt.Sprintf("query %d merged", qi), mv.Search(Query{Groups: q, K: 30}, testParams), want)
	}
	// The merged segment holds exactly the kept notes, with their data.
	for _, n := range kept {
		r, ok := mv.Find(n.ID)
		if !ok {
			t.Fatalf("note %x lost by the merge", n.ID)
		}
		in := mv.Info(r, true)
		if in.Path != n.Path || in.Title != n.Title || !slices.Equal(in.Aliases, n.Aliases) || !slices.Equal(mv.Aliases(r), n.Aliases) ||
			len(in.Headings) != len(n.Headings) || !slices.Equal(mv.Heading(r, 1), n.Headings[1]) || mv.ChunkCount(r) != len(n.Chunks) {
			t.Fatalf("merged note %x = %+v", n.ID, in)
		}
		for ord, c := range n.Chunks {
			row, _ := mv.Chunk(r, uint32(ord))
			if row.Hash != c.Hash || row.LineStart != c.LineStart || row.Ord != uint32(ord) {
				t.Fatalf("merged chunk %x.%d = %+v, want %+v", n.ID, ord, row, c)
			}
		}
	}
	for _, id := range dropped {
		if _, ok := mv.Find(id); ok {
			t.Fatalf("deleted note %x survived the merge", id)
		}
	}
}

func TestCorruptSegmentsDoNotPanic(t *testing.T) {
	b := Build(randomNotes(3, 20))
	r := rand.New(rand.NewPCG(3, 3))
	for range 300 {
		c := append([]byte(nil), b...)
		for range 1 + r.IntN(8) {
			c[headerSize+r.IntN(len(c)-headerSize)] ^= byte(1 + r.IntN(255))
		}
		seg, err := Open(c)
		if err != nil {
			continue
		}
		if seg.Verify() == nil {
			t.Fatal("a corrupted segment passed its checksum")
		}
		v := &View{segs: []*segState{{seg: seg, live: seg.notes}}}
		v.stats = statsOf(v.segs)
		for _, q := range queries() {
			v.Search(Query{Groups: q, K: 10, Passages: 3}, DefaultParams)
		}
		for i := uint32(0); i < seg.notes; i++ {
			seg.Info(i, true)
			seg.Heading(i, 1)
		}
	}
}
