package segment

import (
	"math"
	"math/bits"
	"sync"
)

// none is past every note and chunk.
const none = math.MaxUint32

// The streaming pass. A segment's notes are scored in one pass over the
// query words' chunk postings, merged in chunk order. A note's chunks are
// contiguous, so the pass meets each note once: it scores the note's
// matching chunks as it reads them, keeps the best, sums each word's
// weighted frequencies over the note, and decides the note when it moves
// past it. Nothing is gathered for a second pass, and every write to the
// per-chunk scratch (kept for passages and proximity) is in chunk order.
//
// The scores are those of the word-by-word sums this replaced: a chunk's
// evidence is added word by word in query order, its note fields' share
// once. Only the order in which a note's chunks are summed for its whole
// note follows the chunks now, which can move a score by a float32
// rounding.
//
// A pass over a range of notes needs nothing of the others but the note
// fields and anchor text (summed first, then only read), so a segment
// whose postings for the query are many is cut into ranges of notes that
// workers score at once, each into a heap of its own (parallel.go).

// streamer is one worker of the streaming pass: its iterators and note
// sums, its heap of the best notes, and the whole-note sums of the notes
// it decided (rows, by cand.row).
type streamer struct {
	_      [64]byte // see the end
	s      *searcher
	id     int8
	depth  int
	h      hitHeap
	its    []multiIter
	rows   []float32
	lensOf *Segment
	lens   []float64
	cl     []chunkLen         // the chunks' lengths of the segment in stream
	sums   [maxGroups]float32 // the words' summed frequencies in a note
	// Workers scoring at once write nothing in a cache line another
	// writes: sums (written at every posting) and the fields
	// written as notes are decided are kept apart from the other
	// workers' by a line on either side, and a range's list of chunks
	// touched is appended to in a variable of stream's own. Sharing lines
	// made two workers each a third slower than one (false sharing).
	_ [64]byte
}

var streamers sync.Pool

// newStreamer returns worker id of s's streaming pass, from the pool
// (release puts it back).
func newStreamer(s *searcher, id, depth int) *streamer {
	G := len(s.groups)
	w, _ := streamers.Get().(*streamer)
	if w == nil {
		w = &streamer{}
	}
	w.s, w.id, w.depth, w.lensOf, w.lens = s, int8(id), depth, nil, nil
	w.h, w.rows = w.h[:0], w.rows[:0]
	if cap(w.its) < G {
		w.its = make([]multiIter, G)
	}
	return w
}

// release returns w to the pool, unless it grew for an exceptional query.
func (w *streamer) release() {
	w.s, w.lensOf, w.lens, w.cl = nil, nil, nil, nil
	if cap(w.rows) > 1<<16 || cap(w.h) > 1<<12 {
		return
	}
	streamers.Put(w)
}

// noteRange is a range of a segment's notes, [n0, n1), and so of its
// chunks, [c0, c1): what one worker scores at a time, holding about
// postings of the query words' chunk postings. touched collects the chunks
// whose scratch it set.
type noteRange struct {
	k        int
	n0, n1   uint32
	c0, c1   uint32
	postings uint64
	touched  []uint32
}

// stream scores the notes of r and pushes the best into w's heap.
func (w *streamer) stream(r *noteRange) {
	s := w.s
	k := r.k
	ss := s.v.segs[k]
	seg := ss.seg
	G := len(s.groups)
	sc := s.sc[k]

	// Notes with evidence in their note fields or anchor text are met in
	// note order (a bitset by note): those without a matching chunk are
	// decided between the others.
	lb := sc.loose[:(r.n1+63)/64]
	lw := int(r.n0/64) - 1
	lcur := uint64(0)
	if r.n0%64 != 0 {
		lw++
		lcur = lb[lw] &^ (1<<(r.n0%64) - 1)
	}

	// The chunks' notes and lengths are read from chunkLens, not from
	// their rows; the words' iterators ask for them ahead (rows.go).
	cl := seg.chunkLens(s.p)
	w.cl = cl
	its := w.its[:G]
	live := uint32(0)
	for g := range G {
		if s.idf[g] == 0 {
			continue
		}
		its[g].init(seg, s.ents[k][g], cl)
		ok := its[g].next()
		if ok && its[g].chunk < r.c0 {
			ok = its[g].skipTo(r.c0)
		}
		if ok && its[g].chunk < r.c1 {
			live |= 1 << g
		}
	}
	rsum := w.sums[:G]
	touched := r.touched
	defer func() { r.touched = touched }()
	next := func() uint32 {
		c := uint32(none)
		for m := live; m != 0; m &= m - 1 {
			c = min(c, its[bits.TrailingZeros32(m)].chunk)
		}
		return c
	}
	step := func(g int) {
		if !its[g].next() || its[g].chunk >= r.c1 {
			live &^= 1 << g
		}
	}

	p := s.p
	k1 := p.K1
	for {
		c := next()
		n := r.n1
		if c != none {
			n = cl[c].note
		}
		for {
			if lcur == 0 {
				if lw+1 >= len(lb) || uint32(lw+1)*64 > n {
					break
				}
				lw++
				lcur = lb[lw]
				continue
			}
			ln := uint32(lw)*64 + uint32(bits.TrailingZeros64(lcur))
			if ln > n || ln >= r.n1 {
				break
			}
			lcur &= lcur - 1
			if ln < n {
				w.looseNote(k, sc, ln)
			}
		}
		if c == none {
			return
		}
		if n >= seg.notes || ss.deleted(n) {
			// A deleted note (or a chunk naming none: corrupt): its
			// postings are passed over, whole blocks unread.
			first, cnt := uint32(0), uint32(0)
			if n < seg.notes {
				first, cnt = seg.NoteChunks(n)
			}
			to := max(first+cnt, c+1)
			for m := live; m != 0; m &= m - 1 {
				g := bits.TrailingZeros32(m)
				if its[g].chunk < to && (!its[g].skipTo(to) || its[g].chunk >= r.c1) {
					live &^= 1 << g
				}
			}
			continue
		}

		sl := int(sc.slot[n]) - 1
		for g := range rsum {
			rsum[g] = 0
		}
		// The note's matching chunks: the postings up to the first whose
		// chunk is another note's (a note's chunks are contiguous).
		best, bestScore, amask := c, float32(-1), uint32(0)
		for {
			bc := s.normL(cl[c].l)
			var acc float32
			m := uint32(0)
			for g := range G {
				if live&(1<<g) == 0 || its[g].chunk != c {
					continue
				}
				it := &its[g]
				raw := p.Body*float64(it.body) + p.Heading*float64(it.head)
				x0 := 0.0
				if sl >= 0 {
					i := sl*G + g
					x0 = float64(sc.tv[i])/bc + float64(sc.rv[i])
				}
				if x0 == 0 {
					acc += float32(s.idf[g] * sat(raw/bc, k1)) // sat(0) is 0
				} else {
					acc += float32(s.idf[g] * (sat(x0+raw/bc, k1) - sat(x0, k1)))
				}
				rsum[g] += float32(raw)
				m |= 1 << g
				step(g)
			}
			score := acc
			if sl >= 0 {
				score += float32(s.baseBC(sc, n, bc))
			}
			sc.acc[c], sc.mask[c] = acc, m
			touched = append(touched, c)
			if score > bestScore {
				best, bestScore = c, score
			}
			amask |= m
			if c = next(); c == none || cl[c].note != n {
				break
			}
		}
		w.decide(k, sc, noteAgg{note: n, best: best, bestScore: bestScore, mask: amask}, rsum)
	}
}

// looseNote decides note n of segment k, which holds query words in its
// note fields or anchor text but in none of its chunks: its first chunk
// stands for it.
func (w *streamer) looseNote(k int, sc *scratch, n uint32) {
	if w.looseBelow(sc, n) {
		return
	}
	seg := w.s.v.segs[k].seg
	first, cnt := seg.NoteChunks(n)
	if cnt == 0 {
		return
	}
	score := float32(w.s.baseBC(sc, n, w.s.normL(w.cl[first].l)))
	rsum := w.sums[:len(w.s.groups)]
	clear(rsum)
	w.decide(k, sc, noteAgg{note: n, best: first, bestScore: score}, rsum)
}

// looseBelow reports whether loose note n cannot enter w's full heap
// whatever its first chunk's length: its note fields' score with the
// shortest length there can be, plus the most its whole note can add,
// stays under the weakest note kept — decide would pass it over, and
// nothing of it is read. Most notes found through anchor text alone carry
// only the small weight of a link's surrounding sentence.
func (w *streamer) looseBelow(sc *scratch, n uint32) bool {
	s := w.s
	p := s.p
	if w.h.Len() < w.depth || p.NoteBM25 <= 0 || p.B >= 1 {
		return false
	}
	sl := int(sc.slot[n]) - 1
	if sl < 0 {
		return false
	}
	G := len(s.groups)
	bc := 1 - p.B // no chunk's normalisation is smaller
	b := 0.0
	for g := range s.groups {
		i := sl*G + g
		if x := float64(sc.tv[i])/bc + float64(sc.rv[i]); x > 0 {
			b += s.idf[g] * sat(x, p.K1)
		}
	}
	// A float32 rounding's margin: the score decide compares is one.
	return b*(1+1e-6)+p.NoteBM25*s.maxOf(sc.nmask[sl]) < w.h[0].Score
}

// decide scores note a.note of segment k in full (its best chunk a and
// the whole note, whose words' summed frequencies are rsum) and pushes it
// into the heap if it belongs there. A note whose best chunk plus the most
// its whole note can add (the saturated idf of the words it holds) cannot
// enter the full heap is not scored further.
func (w *streamer) decide(k int, sc *scratch, a noteAgg, rsum []float32) {
	s := w.s
	h := &w.h
	n := a.note
	mask := a.mask
	sl := int(sc.slot[n]) - 1
	if sl >= 0 {
		mask |= sc.nmask[sl]
	}
	full := h.Len() == w.depth
	if full && s.p.NoteBM25 > 0 && float64(a.bestScore)+s.p.NoteBM25*s.maxOf(mask) < (*h)[0].Score {
		return
	}
	seg := s.v.segs[k].seg
	score := float64(a.bestScore)
	if s.p.NoteBM25 != 0 {
		if w.lensOf != seg {
			w.lensOf, w.lens = seg, seg.noteLens(s.p)
		}
		score += s.p.NoteBM25 * s.wholeNote(sc, n, sl, w.lens[n], rsum)
	}
	// The note's id, in a row of its own that is likely not cached, is
	// read only for a score that can enter the heap.
	if score <= 0 || full && score < (*h)[0].Score {
		return
	}
	id := seg.NoteID(n)
	if full && !h.beats(score, id) {
		return
	}
	if s.q.Filter != nil {
		vault, path := seg.NoteVaultPath(n)
		if !s.q.Filter(vault, path) {
			return
		}
	}
	row := int32(len(w.rows))
	w.rows = append(w.rows, rsum...)
	hit := cand{Score: score, ID: id, ref: Ref{k, n}, best: a.best, bestScore: a.bestScore,
		matched: int32(bits.OnesCount32(mask)), w: w.id, row: row}
	if full {
		h.replaceMin(hit) // it beats the weakest, which leaves
	} else {
		h.push(hit)
	}
}

// looseFields adds up segment k's note-field frequencies and anchor text
// per note and query word (the notes' slots in sc).
func (s *searcher) looseFields(k int, sc *scratch) {
	ss := s.v.segs[k]
	seg := ss.seg
	G := len(s.groups)
	var batch [noteBatch]notePost
	for g := range s.groups {
		for _, e := range s.ents[k][g] {
			it := seg.notePostings(e)
			for {
				// A batch decoded first, the rows each posting will
				// read asked for as it is (as in anchors).
				m := 0
				for m < len(batch) && it.next() {
					n := it.note
					if n >= seg.notes || ss.deleted(n) {
						continue
					}
					batch[m] = notePost{n, it.tf}
					m++
					sc.prefetchSlot(n)
					if it.tf[FieldAlias]|it.tf[FieldProps]|it.tf[FieldTags] != 0 {
						seg.prefetchNote(n)
					}
				}
				if m == 0 {
					break
				}
				for i := range batch[:m] {
					s.noteFields(sc, seg, batch[i].note, g, &batch[i].tf)
				}
			}
		}
	}
	// Anchor text last, each word's sum in one addition.
	for _, sl := range sc.aslots {
		for g, w := range sc.av[int(sl)*G:][:G] {
			if w > 0 {
				sc.rv[int(sl)*G+g] += w
				sc.nmask[sl] |= 1 << g
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
	sc.loose[n>>6] |= 1 << (n & 63)
	sc.notes = append(sc.notes, n)
	for range G {
		sc.tv = append(sc.tv, 0)
		sc.rv = append(sc.rv, 0)
		sc.av = append(sc.av, 0)
	}
	sc.nmask = append(sc.nmask, 0)
	sc.amask = append(sc.amask, 0)
	return sl
}

// noteBatch is how many note postings are decoded before they are added
// up (looseFields).
const noteBatch = 32

// notePost is a note posting decoded.
type notePost struct {
	note uint32
	tf   [NoteFields]uint32
}

// noteFields adds note n's note-field frequencies of word g (one
// variant's posting's, tf) to its note values and returns its slot.
func (s *searcher) noteFields(sc *scratch, seg *Segment, n uint32, g int, tf *[NoteFields]uint32) int {
	p := s.p
	G := len(s.groups)
	sl := s.slotOf(sc, n)
	sc.tv[sl*G+g] += float32(p.Title * float64(tf[FieldTitle]))
	r := 0.0
	for f, w := range [...]float64{FieldAlias: p.Alias, FieldProps: p.Props, FieldTags: p.Tags} {
		if f == FieldTitle || tf[f] == 0 || w == 0 {
			continue
		}
		bn := 1 - p.BNote + p.BNote*float64(seg.NoteFieldLen(n, f))/s.avgN[f]
		r += w * float64(tf[f]) / bn
	}
	sc.rv[sl*G+g] += float32(r)
	sc.nmask[sl] |= 1 << g
	return sl
}
