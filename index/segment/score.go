package segment

import "sync"

// noteScore is note n's score with chunk best as its passage: the
// chunk's score (chunkScore, proximity bonus included) plus NoteBM25 times
// the whole note's BM25F. The note's whole-note sums are in sc (agg).
func (s *searcher) noteScore(sc *scratch, seg *Segment, n uint32, chunkScore float64) float64 {
	if s.p.NoteBM25 == 0 || sc.agg[n] == 0 {
		return chunkScore
	}
	G := len(s.groups)
	rsum := sc.rt[int(sc.agg[n]-1)*G:][:G]
	return chunkScore + s.p.NoteBM25*s.wholeNote(sc, n, int(sc.slot[n])-1, seg.noteLens(s.p)[n], rsum)
}

// wholeNote is note n's BM25F over the whole note: its chunks' fields
// summed (rsum, by word), normalised by the note's weighted length l,
// with its note fields (slot sl; -1 none).
func (s *searcher) wholeNote(sc *scratch, n uint32, sl int, l float64, rsum []float32) float64 {
	p := s.p
	G := len(s.groups)
	bn := 1 - p.B + p.B*l/s.avgL
	score := 0.0
	for g := range G {
		x := float64(rsum[g]) / bn
		if sl >= 0 {
			i := sl*G + g
			x += float64(sc.tv[i])/bn + float64(sc.rv[i])
		}
		if x > 0 {
			score += s.idf[g] * sat(x, p.K1)
		}
	}
	return score
}

// meanNoteLen is the mean weighted length of a note in the view.
func (s *searcher) meanNoteLen() float64 {
	p, st := s.p, s.v.stats
	return (p.Title*float64(st.SumTitle)/float64(max(st.Chunks, 1))*float64(st.Notes) + p.Heading*float64(st.SumHead) + p.Body*float64(st.SumBody)) / float64(max(st.Notes, 1))
}

// norm is chunk row r's length normalisation.
func (s *searcher) norm(r []byte) float64 { return s.normL(chunkWeightedLen(r, s.p)) }

// normL is the length normalisation of a chunk of weighted length l.
func (s *searcher) normL(l float32) float64 {
	return 1 - s.p.B + s.p.B*float64(l)/s.avgW
}

// chunkWeightedLen is chunk row r's weighted length (title, heading and
// body), held as a float32: the chunks' lengths are kept in that form
// (chunkLens), and every path computes the same value.
func chunkWeightedLen(r []byte, p Params) float32 {
	return float32(p.Title*float64(le.Uint16(r[crTitle:])) + p.Heading*float64(le.Uint16(r[crHead:])) +
		p.Body*float64(le.Uint16(r[crBody:])))
}

// base is the score a chunk (row r) of note n gets from the note's fields
// alone.
func (s *searcher) base(sc *scratch, n uint32, r []byte) float64 {
	if sc.slot[n] == 0 {
		return 0
	}
	return s.baseBC(sc, n, s.norm(r))
}

// baseBC is base for a chunk whose length normalisation is bc.
func (s *searcher) baseBC(sc *scratch, n uint32, bc float64) float64 {
	sl := sc.slot[n]
	if sl == 0 {
		return 0
	}
	G := len(s.groups)
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
func (s *searcher) max() float64 { return s.maxOf(^uint32(0)) }

// weightedTable is a table derived from a segment's rows for one set of
// field weights, made at the first search that needs it and kept with the
// (immutable) segment.
type weightedTable[T any] struct {
	mu                   sync.Mutex
	body, heading, title float64
	v                    []T
}

// get returns the table for p's field weights, made by build when there
// is none for them. It is made without the lock (reading the rows may wait
// for the disk): two first searches at once may both make it.
func (t *weightedTable[T]) get(p Params, build func() []T) []T {
	t.mu.Lock()
	v := t.v
	if t.body != p.Body || t.heading != p.Heading || t.title != p.Title {
		v = nil
	}
	t.mu.Unlock()
	if v != nil {
		return v
	}
	v = build()
	t.mu.Lock()
	t.v, t.body, t.heading, t.title = v, p.Body, p.Heading, p.Title
	t.mu.Unlock()
	return v
}

// noteLens returns the notes' weighted lengths (every chunk's heading and
// body, the title once) for p's field weights: the sums wholeNote would
// compute, in the same order.
func (s *Segment) noteLens(p Params) []float64 {
	return s.lens.get(p, func() []float64 {
		l := make([]float64, s.notes)
		for i := range l {
			l[i] = s.sumLen(uint32(i), p)
		}
		return l
	})
}

// chunkLen is what the streaming pass reads of a chunk: its note and
// its weighted length (chunkWeightedLen).
type chunkLen struct {
	note uint32
	l    float32
}

// chunkLens returns the chunks' notes and weighted lengths for p's field
// weights: 8 bytes a chunk, read where the pass would read the chunk's
// 32-byte row, so four times as many chunks share a cache line.
func (s *Segment) chunkLens(p Params) []chunkLen {
	return s.clens.get(p, func() []chunkLen {
		c := make([]chunkLen, s.chunks)
		for i := range c {
			r := s.chunkRow(uint32(i))
			c[i] = chunkLen{note: le.Uint32(r[crNote:]), l: chunkWeightedLen(r, p)}
		}
		return c
	})
}

// sumLen adds up note n's weighted length.
func (s *Segment) sumLen(n uint32, p Params) float64 {
	first, cnt := s.NoteChunks(n)
	l := 0.0
	for c := first; c < first+cnt; c++ {
		r := s.chunkRow(c)
		l += p.Heading*float64(le.Uint16(r[crHead:])) + p.Body*float64(le.Uint16(r[crBody:]))
	}
	if cnt > 0 {
		l += p.Title * float64(le.Uint16(s.chunkRow(first)[crTitle:]))
	}
	return l
}
