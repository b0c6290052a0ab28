package segment

import (
	"math"
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
	// K is how many notes to rank; Keep, when not 0 and smaller, how many
	// of them to return (with their passages).
	K, Keep int
	// Passages is how many matching chunks of a note to return besides
	// its best one.
	Passages int
	// Filter admits notes by vault and path (nil: all). The strings are
	// valid only during the call.
	Filter func(vault, path string) bool
	// Resolve maps a link target key to the ids of the notes it names
	// (nil: anchor text is not used).
	Resolve func(key string) []uint64
	// ResolveGen, when not 0, says that Resolve answers alike in every
	// search given the same ResolveGen: segments keep its answers
	// (anchors.go).
	ResolveGen uint64
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
	avgL   float64             // mean weighted length of a note
	ents   [][][]termEntry     // by segment, group, variant
	sc     []*scratch          // by segment

	maxScore float64 // a chunk matching every word at saturation
}

func sat(x, k1 float64) float64 { return x * (k1 + 1) / (k1 + x) }

// scratch returns segment k's working memory, taken from the pool at the
// first call of the search.
func (s *searcher) scratch(k int) *scratch {
	if s.sc[k] == nil {
		seg := s.v.segs[k].seg
		s.sc[k] = getScratch(seg.chunks, seg.notes)
	}
	return s.sc[k]
}

// Search ranks the view's notes for q and returns the best q.K, best first.
func (v *View) Search(q Query, p Params) []NoteHit {
	return v.search(q, p, nil)
}

// segmentScorer scores segment k's notes into h, keeping at most depth.
type segmentScorer func(s *searcher, k, depth int, h *hitHeap)

// search is Search with the scorer of each segment's notes (nil: the
// streaming pass, streamAll; tests compare scorers).
func (v *View) search(q Query, p Params, score segmentScorer) []NoteHit {
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
	s.maxScore = s.max()
	depth := q.K
	prox := p.Proximity > 0 && len(s.groups) > 1
	phrase := false
	for _, g := range s.groups {
		phrase = phrase || g.Phrase > 0
	}
	switch {
	case phrase:
		// A quoted phrase is looked for in every note of the heap, which
		// it filters.
		depth = max(depth, 1000)
	case prox:
		// Proximity rescores the best ProxDepth notes of the heap; the
		// others keep their order below them (a bonus only raises a
		// score). The best Keep after it are among the best
		// max(Keep, ProxDepth) before it.
		if q.Keep > 0 {
			depth = min(depth, q.Keep)
		}
		depth = max(depth, p.ProxDepth)
	case q.Keep > 0:
		// Without it the heap's order is final, and the best Keep of a
		// heap of Keep are the best Keep of a deeper one (ties by id):
		// a shallower heap's weakest note sets a higher bar to enter.
		depth = min(depth, q.Keep)
	}
	s.avgL = s.meanNoteLen()
	var h hitHeap
	if score == nil {
		h = s.streamAll(depth)
	} else {
		h = make(hitHeap, 0, depth)
		for k := range v.segs {
			score(s, k, depth, &h)
		}
	}
	hits := make([]NoteHit, h.Len())
	for i := len(hits) - 1; i >= 0; i-- {
		c := h.pop()
		seg := v.segs[c.ref.seg].seg
		hits[i] = NoteHit{ID: c.ID, Score: c.Score, Max: s.maxScore, Best: s.chunkHit(seg, c.best, float64(c.bestScore)),
			Matched: int(c.matched), Ref: c.ref}
	}
	if prox || phrase {
		hits = s.proximity(hits, phrase)
	}
	keep := q.K
	if q.Keep > 0 {
		keep = min(keep, q.Keep)
	}
	if len(hits) > keep {
		hits = hits[:keep]
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
