package segment

import (
	"math"
	"math/bits"

	"slices"
)

// A segment is scored note by note (document at a time) with MaxScore
// pruning. A word can add at most ub = (1 + NoteBM25)·idf·(k1+1) to a
// note's score (BM25F saturates below k1+1, in the best chunk and in the
// whole note alike), so once the heap of the best notes is full, the words
// whose bounds sum to less than its weakest score cannot bring a note into
// it on their own: they are non-essential, and only the notes holding some
// essential word are visited. The non-essential words' postings are then
// read only up to those notes, and looked at only inside them. A visited
// note is scored in full, every word and every chunk, exactly as an
// exhaustive search scores it, so pruning changes which notes are looked
// at, never a score.

// chunkPost is a chunk posting of the note being scored.
type chunkPost struct {
	chunk      uint32
	g          int
	body, head uint32
}

// ubSlack covers the float32 rounding of the scores compared with the
// bounds.
const ubSlack = 1 + 1e-4

// bounds sets each word's upper bound in any note.
func (s *searcher) bounds() {
	s.ub = make([]float64, len(s.groups))
	s.ubT = make([]float64, len(s.groups))
	s.byUB = make([]int, len(s.groups))
	for g := range s.groups {
		s.ub[g] = (1 + max(s.p.NoteBM25, 0)) * s.idf[g] * (s.p.K1 + 1) * ubSlack
	}
}

// segBounds sets each word's bound in segment k's notes where it is in no
// note field and no anchor text — its best chunk's x at most the segment's
// largest (Segment.chunkBound), the whole note's share at the saturation
// limit — and orders the words by it.
func (s *searcher) segBounds(k int) {
	seg := s.v.segs[k].seg
	p := s.p
	for g := range s.groups {
		s.byUB[g] = g
		s.ubT[g] = s.ub[g]
		if s.exhaustive || s.idf[g] == 0 {
			continue
		}
		x := 0.0
		for _, e := range s.ents[k][g] {
			if e.nPost > 0 {
				x += seg.chunkBound(e, p, s.avgW)
			}
		}
		t := (s.idf[g]*sat(x, p.K1) + max(p.NoteBM25, 0)*s.idf[g]*(p.K1+1)) * ubSlack
		s.ubT[g] = min(t, s.ub[g])
	}
	slices.SortStableFunc(s.byUB, func(a, b int) int {
		switch {
		case s.ubT[a] < s.ubT[b]:
			return -1
		case s.ubT[a] > s.ubT[b]:
			return 1
		}
		return 0
	})
}

// essential returns the mask of the words a note must hold (in a chunk) to
// possibly enter the heap: all of them until it is full, then all but the
// weakest words whose bounds together stay under its weakest score. (Notes
// holding a word in a note field or anchor text are visited whatever its
// bound.)
func (s *searcher) essential(h *hitHeap, depth int) uint32 {
	all := uint32(1)<<len(s.groups) - 1
	if s.exhaustive || h.Len() < depth {
		return all
	}
	theta := (*h)[0].Score
	sum := 0.0
	mask := all
	for _, g := range s.byUB {
		if sum+s.ubT[g] >= theta {
			break
		}
		sum += s.ubT[g]
		mask &^= 1 << g
	}
	return mask
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
	G := len(s.groups)
	sc := s.scratch(k)
	if cap(s.cur) < G {
		s.cur = make([]cursor, G)
	}
	cur := s.cur[:G]
	for g := range G {
		cur[g].init(seg, s.ents[k][g], s.idf[g] != 0)
	}
	var anchors []anchorHit
	if s.anchorAt != nil {
		anchors = s.anchorAt[k]
		slices.SortFunc(anchors, func(a, b anchorHit) int { return int(a.note) - int(b.note) })
	}
	s.segBounds(k)
	ess := s.essential(h, depth)
	for g := range G {
		if ess&(1<<g) != 0 {
			cur[g].seek(seg, 0)
		}
	}
	for {
		// The next note holding an essential word, any word in a note
		// field, or anchor text.
		n := uint32(none)
		for g := range G {
			n = min(n, cur[g].noteMin)
			if ess&(1<<g) != 0 {
				n = min(n, cur[g].at)
			}
		}
		if len(anchors) > 0 {
			n = min(n, anchors[0].note)
		}
		if n == none {
			return
		}
		var arow int32 = -1
		for len(anchors) > 0 && anchors[0].note <= n {
			if anchors[0].note == n {
				arow = anchors[0].row
			}
			anchors = anchors[1:]
		}
		if s.scoreNote(k, sc, cur, n, arow, depth, h) {
			ess = s.essential(h, depth)
		}
		for g := range G {
			if ess&(1<<g) != 0 && cur[g].at <= n {
				cur[g].seek(seg, n+1)
			}
		}
	}
}

// scoreNote scores note n of segment k (arow: its row of anchor weights,
// -1 none) and pushes it into h if it belongs there, reporting whether it
// did. Every cursor leaves past the note.
func (s *searcher) scoreNote(k int, sc *scratch, cur []cursor, n uint32, arow int32, depth int, h *hitHeap) bool {
	ss := s.v.segs[k]
	seg := ss.seg
	p := s.p
	G := len(s.groups)
	first, cnt := seg.NoteChunks(n)
	end := first + cnt
	deleted := ss.deleted(n)

	// Gather the note's postings, word by word, and move every cursor past
	// the note.
	s.post = s.post[:0]
	present := uint32(0)
	for g := range G {
		c := &cur[g]
		if !c.live || c.chunks.chunk >= end {
			continue
		}
		for c.live && c.chunks.chunk < first {
			c.stepChunk(seg)
		}
		for c.live && c.chunks.chunk < end {
			if !deleted {
				s.post = append(s.post, chunkPost{c.chunks.chunk, g, c.chunks.body, c.chunks.head})
				present |= 1 << g
			}
			c.stepChunk(seg)
		}
	}
	sl := -1
	for g := range G {
		c := &cur[g]
		if c.noteMin > n {
			continue
		}
		for v := range c.notes {
			for c.nlive[v] && c.notes[v].note < n {
				c.stepNote(seg, v)
			}
			if !c.nlive[v] || c.notes[v].note != n {
				continue
			}
			if !deleted {
				sl = s.noteFields(sc, seg, n, g, &c.notes[v])
				present |= 1 << g
			}
			c.stepNote(seg, v)
		}
		c.minNote()
	}
	if deleted {
		return false
	}
	if arow >= 0 {
		for g, w := range s.anchorW[int(arow)*G:][:G] {
			if w > 0 {
				sl = s.slotOf(sc, n)
				sc.rv[sl*G+g] += w
				sc.nmask[sl] |= 1 << g
				present |= 1 << g
			}
		}
	}
	loose := uint32(0) // words in the note's fields or anchor text
	if sl >= 0 {
		loose = sc.nmask[sl]
	}
	full := h.Len() == depth
	if full && !s.exhaustive && s.boundOf(present, loose) < (*h)[0].Score {
		return false
	}
	if s.q.stats != nil {
		s.q.stats.scored++
	}

	// Chunk fields, word by word as the postings came.
	s.touched = s.touched[:0]
	k1 := p.K1
	for _, cp := range s.post {
		c, g := cp.chunk, cp.g
		r := seg.chunkRow(c)
		bc := s.norm(r)
		x0 := 0.0
		if sl >= 0 {
			i := sl*G + g
			x0 = float64(sc.tv[i])/bc + float64(sc.rv[i])
		}
		raw := p.Body*float64(cp.body) + p.Heading*float64(cp.head)
		x := raw / bc
		if sc.mask[c] == 0 {
			sc.touched = append(sc.touched, c)
			s.touched = append(s.touched, c)
			sc.xi[c] = int32(len(sc.xr)/G + 1)
			sc.xr = append(sc.xr, make([]float32, G)...)
		}
		sc.xr[int(sc.xi[c]-1)*G+g] = float32(raw)
		sc.acc[c] += float32(s.idf[g] * (sat(x0+x, k1) - sat(x0, k1)))
		sc.mask[c] |= 1 << g
	}

	// The best chunk, with the note's fields; the sums for the whole note.
	var a noteAgg
	switch {
	case len(s.touched) > 0:
		a = noteAgg{note: n, best: s.touched[0], bestScore: -1}
		sc.aggs = append(sc.aggs, a)
		sc.agg[n] = int32(len(sc.aggs))
		for range G {
			sc.rt = append(sc.rt, 0)
		}
		rsum := sc.rt[int(sc.agg[n]-1)*G:][:G]
		for _, c := range s.touched {
			score := sc.acc[c] + float32(s.base(sc, n, seg.chunkRow(c)))
			for g, x := range sc.xr[int(sc.xi[c]-1)*G:][:G] {
				rsum[g] += x
			}
			a.mask |= sc.mask[c]
			if score > a.bestScore || score == a.bestScore && c < a.best {
				a.best, a.bestScore = c, score
			}
		}
		sc.aggs[len(sc.aggs)-1] = a
	case sl >= 0 && cnt > 0:
		a = noteAgg{note: n, best: first, bestScore: float32(s.base(sc, n, seg.chunkRow(first)))}
		sc.aggs = append(sc.aggs, a)
		sc.agg[n] = int32(len(sc.aggs))
		for range G {
			sc.rt = append(sc.rt, 0)
		}
	default:
		return false
	}
	mask := a.mask
	if sl >= 0 {
		mask |= sc.nmask[sl]
	}
	// A note's whole-note BM25F is at most the saturated idf of the words
	// it holds, so a note whose best chunk plus that bound cannot enter
	// the full heap is not scored further.
	if full && s.p.NoteBM25 > 0 && float64(a.bestScore)+s.p.NoteBM25*s.maxOf(mask) < (*h)[0].Score {
		return false
	}
	id := seg.NoteID(n)
	score := s.noteScore(sc, seg, n, float64(a.bestScore))
	if score <= 0 || full && !h.beats(score, id) {
		return false
	}
	if s.q.Filter != nil {
		vault, path := seg.NoteVaultPath(n)
		if !s.q.Filter(vault, path) {
			return false
		}
	}
	hit := NoteHit{ID: id, Score: score, Max: s.maxScore, Best: s.chunkHit(seg, a.best, float64(a.bestScore)),
		Matched: bits.OnesCount32(mask), Ref: Ref{k, n}}
	if full {
		h.replaceMin(hit) // it beats the weakest, which leaves
	} else {
		h.push(hit)
	}
	return true
}

// noteFields adds note n's note-field frequencies of word g (one
// variant's posting, it) to its note values and returns its slot.
func (s *searcher) noteFields(sc *scratch, seg *Segment, n uint32, g int, it *noteIter) int {
	p := s.p
	G := len(s.groups)
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
	return sl
}

// boundOf is the most a note holding the words in mask can score, those
// in loose in its note fields or anchor text.
func (s *searcher) boundOf(mask, loose uint32) float64 {
	b := 0.0
	for g, u := range s.ub {
		switch {
		case loose&(1<<g) != 0:
			b += u
		case mask&(1<<g) != 0:
			b += s.ubT[g]
		}
	}
	if b == 0 {
		return math.Inf(-1)
	}
	return b
}
