package segment

import (
	"container/heap"
	"math"
	"sort"
	"sync"
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

// scratch is a segment's per-query working memory, pooled.
type scratch struct {
	acc     []float32 // by chunk: the chunk's own evidence
	mask    []uint32  // by chunk: query words matched
	touched []uint32  // chunks with acc set
	slot    []int32   // by note: 1 + index into the note values, 0 none
	notes   []uint32  // notes with a slot
	tv, rv  []float32 // note values by slot×groups: title tf, other fields
	nmask   []uint32  // by slot: words matched in note fields
	agg     []int32   // by note: 1 + index into aggs
	aggs    []noteAgg
	xi      []int32   // by chunk: 1 + index of its row in xs
	xs      []float32 // rows of groups: a chunk's own field frequencies, normalised
	rt      []float32 // rows of groups, by agg: Σ over the note's chunks of xr
	xr      []float32 // like xs, not length-normalised
}

type noteAgg struct {
	note      uint32
	best      uint32
	bestScore float32
	mask      uint32
}

var scratchPool sync.Pool

func getScratch(chunks, notes uint32) *scratch {
	sc, _ := scratchPool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	if uint32(len(sc.acc)) < chunks {
		sc.acc = make([]float32, chunks+chunks/4)
		sc.mask = make([]uint32, chunks+chunks/4)
	}
	if uint32(len(sc.slot)) < notes {
		sc.slot = make([]int32, notes+notes/4)
		sc.agg = make([]int32, notes+notes/4)
	}
	if uint32(len(sc.xi)) < chunks {
		sc.xi = make([]int32, chunks+chunks/4)
	}
	return sc
}

func (sc *scratch) release() {
	for _, c := range sc.touched {
		sc.acc[c], sc.mask[c], sc.xi[c] = 0, 0, 0
	}
	for _, n := range sc.notes {
		sc.slot[n] = 0
	}
	for _, a := range sc.aggs {
		sc.agg[a.note] = 0
	}
	sc.touched, sc.notes, sc.aggs = sc.touched[:0], sc.notes[:0], sc.aggs[:0]
	sc.tv, sc.rv, sc.nmask = sc.tv[:0], sc.rv[:0], sc.nmask[:0]
	sc.xs, sc.rt, sc.xr = sc.xs[:0], sc.rt[:0], sc.xr[:0]
	if len(sc.acc) > 1<<22 || cap(sc.touched) > 1<<20 {
		return // do not pin the memory of an exceptional query
	}
	scratchPool.Put(sc)
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

// anchorOnly reports whether group g occurs only as anchor text.
func (s *searcher) anchorOnly(g int) bool {
	if s.q.Resolve == nil || s.p.Anchor+s.p.AnchorContext <= 0 {
		return false
	}
	for k := range s.ents {
		for _, e := range s.ents[k][g] {
			if e.nAnchor > 0 {
				return true
			}
		}
	}
	return false
}

// anchors sums, per target note and query word, the anchor text of the
// links pointing at it.
func (s *searcher) anchors() {
	s.anchor = make(map[uint64][]float32)
	cache := make(map[string][]uint64)
	G := len(s.groups)
	for k, ss := range s.v.segs {
		for g := range s.groups {
			for _, e := range s.ents[k][g] {
				it := ss.seg.anchorPostings(e)
				for it.next() {
					if ss.deleted(it.source) {
						continue
					}
					key := ss.seg.key(it.key)
					ids, ok := cache[key]
					if !ok {
						ids = s.q.Resolve(key)
						cache[key] = ids
					}
					src := ss.seg.NoteID(it.source)
					w := float32(s.p.Anchor*float64(it.link) + s.p.AnchorContext*float64(it.ctx))
					for _, id := range ids {
						if id == src {
							continue // a note's links to itself say nothing about it
						}
						a := s.anchor[id]
						if a == nil {
							a = make([]float32, G)
							s.anchor[id] = a
						}
						a[g] += w
					}
				}
			}
		}
	}
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
			Matched: popcount(mask), Ref: Ref{k, a.note}}
		if h.Len() == depth {
			(*h)[0] = hit // it beats the weakest, which leaves
			heap.Fix(h, 0)
		} else {
			heap.Push(h, hit)
		}
	}
}

// noteScore is note n's score with chunk best as its passage: the
// chunk's score (chunkScore, proximity bonus included) plus NoteBM25 times
// the whole note's BM25F.
func (s *searcher) noteScore(sc *scratch, seg *Segment, n uint32, chunkScore float64) float64 {
	if s.p.NoteBM25 == 0 || sc.agg[n] == 0 {
		return chunkScore
	}
	return chunkScore + s.p.NoteBM25*s.wholeNote(sc, seg, n)
}

// wholeNote is note n's BM25F over the whole note (its chunks' fields
// summed, normalised by the note's length).
func (s *searcher) wholeNote(sc *scratch, seg *Segment, n uint32) float64 {
	p := s.p
	G := len(s.groups)
	first, cnt := seg.NoteChunks(n)
	l := 0.0
	for c := first; c < first+cnt; c++ {
		r := seg.chunkRow(c)
		l += p.Heading*float64(le.Uint16(r[crHead:])) + p.Body*float64(le.Uint16(r[crBody:]))
	}
	if cnt > 0 {
		l += p.Title * float64(le.Uint16(seg.chunkRow(first)[crTitle:]))
	}
	st := s.v.stats
	avg := (p.Title*float64(st.SumTitle)/float64(max(st.Chunks, 1))*float64(st.Notes) + p.Heading*float64(st.SumHead) + p.Body*float64(st.SumBody)) / float64(max(st.Notes, 1))
	bn := 1 - p.B + p.B*l/avg
	rsum := sc.rt[int(sc.agg[n]-1)*G:][:G]
	score := 0.0
	for g := range G {
		x := float64(rsum[g]) / bn
		if sl := sc.slot[n]; sl != 0 {
			i := int(sl-1)*G + g
			x += float64(sc.tv[i])/bn + float64(sc.rv[i])
		}
		if x > 0 {
			score += s.idf[g] * sat(x, p.K1)
		}
	}
	return score
}

// norm is chunk row r's length normalisation.
func (s *searcher) norm(r []byte) float64 {
	p := s.p
	l := p.Title*float64(le.Uint16(r[crTitle:])) + p.Heading*float64(le.Uint16(r[crHead:])) +
		p.Body*float64(le.Uint16(r[crBody:]))
	return 1 - p.B + p.B*l/s.avgW
}

// base is the score a chunk (row r) of note n gets from the note's fields
// alone.
func (s *searcher) base(sc *scratch, n uint32, r []byte) float64 {
	sl := sc.slot[n]
	if sl == 0 {
		return 0
	}
	G := len(s.groups)
	bc := s.norm(r)
	b := 0.0
	for g := range s.groups {
		i := int(sl-1)*G + g
		if x := float64(sc.tv[i])/bc + float64(sc.rv[i]); x > 0 {
			b += s.idf[g] * sat(x, s.p.K1)
		}
	}
	return b
}

// maxOf is the score of the query words in mask at saturation.
func (s *searcher) maxOf(mask uint32) float64 {
	m := 0.0
	for g, w := range s.idf {
		if mask&(1<<g) != 0 {
			m += w * (s.p.K1 + 1)
		}
	}
	return m
}

// max is the score of a chunk matching every query word at saturation.
func (s *searcher) max() float64 {
	m := 0.0
	for _, w := range s.idf {
		m += w * (s.p.K1 + 1)
	}
	return m
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

func popcount(m uint32) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// hitHeap is a min-heap of note hits on score; ties are broken by id, so
// results do not depend on segment layout.
type hitHeap []NoteHit

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	return h[i].ID > h[j].ID
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)   { *h = append(*h, x.(NoteHit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// beats reports whether a hit with score and id would enter the full heap.
func (h hitHeap) beats(score float64, id uint64) bool {
	return score > h[0].Score || score == h[0].Score && id < h[0].ID
}
