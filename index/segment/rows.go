package segment

import "unsafe"

// ahead is how many postings a multiIter decodes before they are used,
// and noteAhead how many postings before its use a posting's note row is
// asked for (its chunk row was asked for ahead − noteAhead postings
// earlier). A miss costs about as long as scoring a few postings, so a
// few postings of lead hide most of it.
const (
	ahead     = 8
	noteAhead = 3
)

// near is the distance in chunks under which a posting's rows are left to
// the processor's own prefetching, which follows reads that move forward
// by a few rows: a dense list's postings need no hint, and the hint's own
// cost (an extra read of the chunk row for the note) would be paid for
// nothing.
const near = 4

// posting is one chunk posting of a query word, its variants merged; far
// when its chunk is at least near chunks past the one before it.
type posting struct {
	chunk, body, head uint32
	far               bool
}

// rowAhead is a multiIter's postings decoded ahead of use, in a ring, and
// the prefetching of what the streaming pass reads for them: the chunks'
// lengths (chunkLens) and their notes' rows.
type rowAhead struct {
	seg      *Segment
	lens     []chunkLen
	ring     [ahead]posting
	h, n     int
	last     uint32 // the chunk of the last posting pushed
	lastNote uint32
}

// prefetchChunks is the number of chunks from which a segment's postings
// are decoded ahead and what is read for them prefetched: below it the
// tables mostly stay in the processor's caches between queries,
// and the ring would cost more than the misses it hides (obsidian-hub's
// 20,580 chunks: +4 % of CPU a query; its 50× vault's 1,055,690: −7 % and
// the median query −35 %).
var prefetchChunks uint32 = 1 << 17 // a variable for the tests

// sparse is the mean distance in chunks between a word's postings from
// which they are decoded ahead: a denser list reads its rows nearly in
// sequence, which the processor prefetches by itself, and the ring would
// only add its own cost to every posting.
const sparse = 8

// reset empties r for a word with postings postings in segment s, whose
// chunk lengths are lens; r stays off (seg nil) without them, for a small
// segment or for a dense list.
func (r *rowAhead) reset(s *Segment, postings uint64, lens []chunkLen) {
	r.seg, r.lens, r.h, r.n, r.last, r.lastNote = nil, nil, 0, 0, 0, none
	if lens != nil && s.chunks >= prefetchChunks && postings*sparse <= uint64(s.chunks) {
		r.seg, r.lens = s, lens
	}
}

// push appends p and asks for its chunk's length.
func (r *rowAhead) push(p posting) {
	p.far = p.chunk-r.last >= near || p.chunk < r.last
	r.ring[(r.h+r.n)%ahead] = p
	r.n++
	if p.chunk/8 != r.last/8 && p.chunk < uint32(len(r.lens)) { // eight a cache line
		prefetchAt(&r.lens[p.chunk])
	}
	r.last = p.chunk
}

// pop removes and returns the oldest posting, asking for the note row of
// the one noteAhead behind it.
func (r *rowAhead) pop() posting {
	p := r.ring[r.h]
	r.h = (r.h + 1) % ahead
	r.n--
	if q := &r.ring[(r.h+noteAhead-1)%ahead]; r.n >= noteAhead && q.far {
		n := uint32(none)
		if q.chunk < uint32(len(r.lens)) {
			n = r.lens[q.chunk].note
		}
		if n != r.lastNote {
			r.lastNote = n
			r.seg.prefetchNote(n)
		}
	}
	return p
}

// dropBefore drops the postings before chunk c and reports whether one at
// c or after is left.
func (r *rowAhead) dropBefore(c uint32) bool {
	for r.n > 0 && r.ring[r.h].chunk < c {
		r.h = (r.h + 1) % ahead
		r.n--
	}
	return r.n > 0
}

// prefetchAt asks for the cache line holding *p (see prefetch).
func prefetchAt[T any](p *T) { prefetch(uintptr(unsafe.Pointer(p))) }

// prefetchNote asks for note n's row, if n is one.
func (s *Segment) prefetchNote(n uint32) {
	rows := s.sec[secNoteRows]
	if off := uint64(n) * noteRowSize; off < uint64(len(rows)) {
		prefetch(uintptr(unsafe.Pointer(unsafe.SliceData(rows))) + uintptr(off))
	}
}
