package segment

import (
	"container/heap"
	"math"
	"math/bits"
	"sort"
)

// Group is one word of a query: its analysed variants (one per language
// the index holds notes in; usually one) and its position in the query.
type Group struct {
	Terms []string
	Pos   int
	// Phrase is the 1-based number of the quoted phrase the word belongs
	// to (0: none): a phrase's words must stand in a chunk's body exactly
	// as in the query.
	Phrase int
}

// Query is a lexical search.
type Query struct {
	Groups []Group
	// K is how many notes to return.
	K int
	// Passages is how many matching chunks of a note to return besides
	// its best one.
	Passages int
	// Filter admits notes by vault and path (nil: all). The strings are
	// valid only during the call.
	Filter func(vault, path string) bool
	// Resolve maps a link target key to the ids of the notes it names
	// (nil: anchor text is not used).
	Resolve func(key string) []uint64
}

// NoteHit is a note found by a search, with its best chunk.
type NoteHit struct {
	ID    uint64
	Score float64
	// Max is the score of a chunk holding every query word at saturation
	// (Σ idf·(k1+1)): Score/Max is how much of the query the note matches.
	Max  float64
	Best ChunkHit
	More []ChunkHit // other matching chunks, best first
	// Matched is the number of query words the best chunk or the note's
	// fields hold.
	Matched int
	Ref     Ref
}

// ChunkHit is a chunk of a NoteHit.
type ChunkHit struct {
	Ord                        uint32
	Score                      float64
	Parent, LineStart, LineEnd uint32
}

// searcher is one search over a view.
type searcher struct {
	v      *View
	p      Params
	q      Query
	groups []Group
	idf    []float64
	avgW   float64             // mean weighted length of a chunk (body, heading, title)
	avgN   [NoteFields]float64 // mean length of the note fields
	ents   [][][]termEntry     // by segment, group, variant
	anchor map[uint64][]float32
	sc     []*scratch // by segment
}

func sat(x, k1 float64) float64 { return x * (k1 + 1) / (k1 + x) }

// Search ranks the view's notes for q and returns the best q.K, best first.
func (v *View) Search(q Query, p Params) []NoteHit {
	if q.K <= 0 || v.stats.Chunks <= 0 || len(q.Groups) == 0 {
		return nil
	}
	s := &searcher{v: v, p: p, q: q, groups: q.Groups}
	if len(s.groups) > maxGroups {
		s.groups = s.groups[:maxGroups]
	}
	if !s.prepare() {
		return nil
	}
	s.sc = make([]*scratch, len(v.segs))
	defer func() {
		for _, sc := range s.sc {
			if sc != nil {
				sc.release()
			}
		}
	}()
	if q.Resolve != nil && p.Anchor+p.AnchorContext > 0 {
		s.anchors()
	}
	depth := q.K
	prox := p.Proximity > 0 && len(s.groups) > 1
	phrase := false
	for _, g := range s.groups {
		phrase = phrase || g.Phrase > 0
	}
	if prox || phrase {
		depth = max(depth, p.ProxDepth)
	}
	if phrase {
		depth = max(depth, 1000)
	}
	h := &hitHeap{}
	for k := range v.segs {
		s.scoreSegment(k, depth, h)
	}
	hits := make([]NoteHit, h.Len())
	for i := len(hits) - 1; i >= 0; i-- {
		hits[i] = heap.Pop(h).(NoteHit)
	}
	if prox || phrase {
		hits = s.proximity(hits, phrase)
	}
	if len(hits) > q.K {
		hits = hits[:q.K]
	}
	s.passages(hits)
	return hits
}

// prepare looks the query words up in every segment and computes their
// idf and the mean lengths; false when no word is in the index.
func (s *searcher) prepare() bool {
	v, p := s.v, s.p
	n := float64(v.stats.Chunks)
	s.ents = make([][][]termEntry, len(v.segs))
	df := make([]float64, len(s.groups))
	for k, ss := range v.segs {
		s.ents[k] = make([][]termEntry, len(s.groups))
		for g, gr := range s.groups {
			for _, t := range gr.Terms {
				e, ok := ss.seg.lookup(t)
				if !ok {
					continue
				}
				s.ents[k][g] = append(s.ents[k][g], e)
				d := float64(e.df)
				if ss.delDF != nil {
					d -= float64(ss.delDF[e.ord])
				}
				df[g] += max(d, 0)
			}
		}
	}
	s.idf = make([]float64, len(s.groups))
	any := false
	for g := range s.groups {
		if df[g] == 0 && !s.anchorOnly(g) {
			continue
		}
		d := min(max(df[g], 1), n)
		s.idf[g] = math.Log(1 + (n-d+0.5)/(d+0.5))
		any = true
	}
	st := v.stats
	s.avgW = (p.Title*float64(st.SumTitle) + p.Heading*float64(st.SumHead) + p.Body*float64(st.SumBody)) / n
	if s.avgW <= 0 {
		s.avgW = 1
	}
	for f := range NoteFields {
		s.avgN[f] = 1
		if st.Notes > 0 && st.SumNote[f] > 0 {
			s.avgN[f] = float64(st.SumNote[f]) / float64(st.Notes)
		}
	}
	return any
}

// slotOf returns note n's index into the note values, adding it.
func (s *searcher) slotOf(sc *scratch, n uint32) int {
	if sl := sc.slot[n]; sl != 0 {
		return int(sl - 1)
	}
	G := len(s.groups)
	sl := len(sc.nmask)
	sc.slot[n] = int32(sl + 1)
	sc.notes = append(sc.notes, n)
	for range G {
		sc.tv = append(sc.tv, 0)
		sc.rv = append(sc.rv, 0)
	}
	sc.nmask = append(sc.nmask, 0)
	return sl
}

// scoreSegment scores segment k's notes and pushes the best into h (at
// most depth notes kept).
func (s *searcher) scoreSegment(k, depth int, h *hitHeap) {
	ss := s.v.segs[k]
	seg := ss.seg
	p := s.p
	G := len(s.groups)
	sc := getScratch(seg.chunks, seg.notes)
	s.sc[k] = sc

	// Note fields.
	for g := range s.groups {
		for _, e := range s.ents[k][g] {
			it := seg.notePostings(e)
			for it.next() {
				n := it.note
				if n >= seg.notes || ss.deleted(n) {
					continue
				}
				sl := s.slotOf(sc, n)
				sc.tv[sl*G+g] += float32(p.Title * float64(it.tf[FieldTitle]))
				r := 0.0
				for f, w := range [...]float64{FieldAlias: p.Alias, FieldProps: p.Props, FieldTags: p.Tags} {
					if f == FieldTitle || it.tf[f] == 0 || w == 0 {
						continue
					}
					bn := 1 - p.BNote + p.BNote*float64(seg.NoteFieldLen(n, f))/s.avgN[f]
					r += w * float64(it.tf[f]) / bn
				}
				sc.rv[sl*G+g] += float32(r)
				sc.nmask[sl] |= 1 << g
			}
		}
	}
	for id, a := range s.anchor {
		n, ok := seg.FindNote(id)
		if !ok || ss.deleted(n) {
			continue
		}
		sl := s.slotOf(sc, n)
		for g, w := range a {
			if w > 0 {
				sc.rv[sl*G+g] += w
				sc.nmask[sl] |= 1 << g
			}
		}
	}

	// Chunk fields.
	k1 := p.K1
	for g := range s.groups {
		idf := s.idf[g]
		if idf == 0 {
			continue
		}
		it := newMultiIter(seg, s.ents[k][g])
		for it.next() {
			c := it.chunk
			if c >= seg.chunks {
				break
			}
			r := seg.chunkRow(c)
			n := le.Uint32(r[crNote:])
			if n >= seg.notes || ss.deleted(n) {
				continue
			}
			bc := s.norm(r)
			x0 := 0.0
			if sl := sc.slot[n]; sl != 0 {
				i := int(sl-1)*G + g
				x0 = float64(sc.tv[i])/bc + float64(sc.rv[i])
			}
			x := (p.Body*float64(it.body) + p.Heading*float64(it.head)) / bc
			if sc.mask[c] == 0 {
				sc.touched = append(sc.touched, c)
				sc.xi[c] = int32(len(sc.xs)/G + 1)
				for range G {
					sc.xs = append(sc.xs, 0)
					sc.xr = append(sc.xr, 0)
				}
			}
			sc.xs[int(sc.xi[c]-1)*G+g] = float32(x)
			sc.xr[int(sc.xi[c]-1)*G+g] = float32(p.Body*float64(it.body) + p.Heading*float64(it.head))
			sc.acc[c] += float32(idf * (sat(x0+x, k1) - sat(x0, k1)))
			sc.mask[c] |= 1 << g
		}
	}

	// Notes: the best chunk, with a share of the note's other chunks.
	for _, c := range sc.touched {
		r := seg.chunkRow(c)
		n := le.Uint32(r[crNote:])
		score := sc.acc[c] + float32(s.base(sc, n, r))
		var a *noteAgg
		if i := sc.agg[n]; i != 0 {
			a = &sc.aggs[i-1]
		} else {
			sc.aggs = append(sc.aggs, noteAgg{note: n, best: c, bestScore: -1})
			sc.agg[n] = int32(len(sc.aggs))
			a = &sc.aggs[len(sc.aggs)-1]
			for range G {
				sc.rt = append(sc.rt, 0)
			}
		}
		raw := sc.xr[int(sc.xi[c]-1)*G:][:G]
		rsum := sc.rt[int(sc.agg[n]-1)*G:][:G]
		for g, x := range raw {
			rsum[g] += x
		}
		a.mask |= sc.mask[c]
		if score > a.bestScore || score == a.bestScore && c < a.best {
			a.best, a.bestScore = c, score
		}
	}
	for _, n := range sc.notes {
		if sc.agg[n] != 0 {
			continue
		}
		first, cnt := seg.NoteChunks(n)
		if cnt == 0 {
			continue
		}
		score := float32(s.base(sc, n, seg.chunkRow(first)))
		sc.aggs = append(sc.aggs, noteAgg{note: n, best: first, bestScore: score})
		sc.agg[n] = int32(len(sc.aggs))
		for range G {
			sc.rt = append(sc.rt, 0)
		}
	}
	max := s.max()
	// A note's whole-note BM25F is at most the saturated idf of the words
	// it holds, so a note whose best chunk plus that bound cannot enter
	// the full heap is not scored further.
	var allowed map[uint32]bool
	for _, a := range sc.aggs {
		if h.Len() == depth && s.p.NoteBM25 > 0 {
			mask := a.mask
			if sl := sc.slot[a.note]; sl != 0 {
				mask |= sc.nmask[sl-1]
			}
			if float64(a.bestScore)+s.p.NoteBM25*s.maxOf(mask) < (*h)[0].Score {
				continue
			}
		}
		id := seg.NoteID(a.note)
		score := s.noteScore(sc, seg, a.note, float64(a.bestScore))
		if score <= 0 {
			continue
		}
		if h.Len() == depth && !h.beats(score, id) {
			continue
		}
		if s.q.Filter != nil {
			if allowed == nil {
				allowed = make(map[uint32]bool)
			}
			ok, seen := allowed[a.note]
			if !seen {
				vault, path := seg.NoteVaultPath(a.note)
				ok = s.q.Filter(vault, path)
				allowed[a.note] = ok
			}
			if !ok {
				continue
			}
		}
		mask := a.mask
		if sl := sc.slot[a.note]; sl != 0 {
			mask |= sc.nmask[sl-1]
		}
		hit := NoteHit{ID: id, Score: score, Max: max, Best: s.chunkHit(seg, a.best, float64(a.bestScore)),
			Matched: bits.OnesCount32(mask), Ref: Ref{k, a.note}}
		if h.Len() == depth {
			(*h)[0] = hit // it beats the weakest, which leaves
			heap.Fix(h, 0)
		} else {
			heap.Push(h, hit)
		}
	}
}

func (s *searcher) chunkHit(seg *Segment, c uint32, score float64) ChunkHit {
	r := seg.Chunk(c)
	return ChunkHit{Ord: r.Ord, Score: score, Parent: r.Parent, LineStart: r.LineStart, LineEnd: r.LineEnd}
}

// passages fills each hit's other matching chunks, best first.
func (s *searcher) passages(hits []NoteHit) {
	if s.q.Passages <= 0 {
		return
	}
	for i := range hits {
		h := &hits[i]
		seg := s.v.segs[h.Ref.seg].seg
		sc := s.sc[h.Ref.seg]
		first, n := seg.NoteChunks(h.Ref.note)
		var more []ChunkHit
		for c := first; c < first+n; c++ {
			if c-first == h.Best.Ord || sc.mask[c] == 0 {
				continue
			}
			score := float64(sc.acc[c]) + s.base(sc, h.Ref.note, seg.chunkRow(c))
			more = append(more, s.chunkHit(seg, c, score))
		}
		sort.SliceStable(more, func(a, b int) bool { return more[a].Score > more[b].Score })
		if len(more) > s.q.Passages {
			more = more[:s.q.Passages]
		}
		h.More = more
	}
}
