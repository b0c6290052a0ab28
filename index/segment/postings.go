package segment

import "math/bits"

// postIter walks a term's chunk postings in chunk order, and, on request,
// each posting's body positions.
type postIter struct {
	d     decoder
	pos   decoder
	left  uint64
	chunk uint32
	body  uint32
	head  uint32
	// posPending is how many position varints of the current posting have
	// not been read; posSkip how many of earlier postings' were not: they
	// are skipped all at once when a later posting's are read.
	posPending uint32
	posSkip    uint64
	// noPos: positions are never read, so never skipped either.
	noPos bool
	// The term's blocks (blocks.go): bi is the first whose postings are
	// not all decoded; start and posStart are where the term's postings
	// and positions begin.
	blk             blockTable
	bi              int
	nPost           uint64
	start, posStart []byte
}

func (s *Segment) postings(e termEntry) postIter {
	p, q := s.sec[secPostings], s.sec[secPositions]
	if e.postOff > uint64(len(p)) || e.posOf > uint64(len(q)) {
		return postIter{}
	}
	return postIter{d: decoder{b: p[e.postOff:]}, pos: decoder{b: q[e.posOf:]}, left: e.nPost,
		blk: s.blocks(e), nPost: e.nPost, start: p[e.postOff:], posStart: q[e.posOf:]}
}

// next advances to the next posting; false at the end (or on corruption).
func (it *postIter) next() bool {
	if it.left == 0 || it.d.bad {
		return false
	}
	it.left--
	it.posSkip += uint64(it.posPending)
	it.posPending = 0
	var v uint64
	if b := it.d.b; len(b) >= 2 && b[0] < 0x80 && b[1] < 0x80 {
		// The usual posting: a chunk delta and frequencies under 128,
		// a byte each.
		it.chunk += uint32(b[0])
		v = uint64(b[1])
		it.d.b = b[2:]
	} else {
		it.chunk += it.d.u32()
		v = it.d.uvarint()
	}
	it.body, it.head = uint32(v>>1), 0
	if v&1 != 0 {
		it.head = it.d.u32()
	}
	if !it.noPos {
		it.posPending = it.body
	}
	return !it.d.bad
}

// skipPositions skips the position varints of earlier postings not read.
func (it *postIter) skipPositions() {
	if it.posSkip == 0 {
		return
	}
	var ok bool
	it.pos.b, ok = skipVarints(it.pos.b, it.posSkip)
	it.posSkip = 0
	if !ok {
		it.pos.bad, it.pos.b = true, nil
		it.posPending = 0
	}
}

// skipVarints returns b past its first n varints; false if b holds fewer.
// It looks at eight bytes at a time: each byte below 0x80 ends a varint.
func skipVarints(b []byte, n uint64) ([]byte, bool) {
	i := 0
	for n > 8 && i+8 <= len(b) {
		ends := uint64(bits.OnesCount64(^le.Uint64(b[i:]) & 0x8080808080808080))
		if ends >= n {
			break // the n-th ends in these eight bytes
		}
		n -= ends
		i += 8
	}
	for ; n > 0; n-- {
		for i < len(b) && b[i] >= 0x80 {
			i++
		}
		if i >= len(b) {
			return nil, false
		}
		i++
	}
	return b[i:], true
}

// positions appends the current posting's body positions to dst. It may
// be called once per posting.
func (it *postIter) positions(dst []uint32) []uint32 {
	it.skipPositions()
	last := uint32(0)
	for ; it.posPending > 0; it.posPending-- {
		last += it.pos.u32()
		if it.pos.bad {
			it.posPending = 0
			break
		}
		dst = append(dst, last)
	}
	return dst
}

// notePost walks a term's note postings.
type noteIter struct {
	d    decoder
	left uint64
	note uint32
	tf   [NoteFields]uint32
}

func (s *Segment) notePostings(e termEntry) noteIter {
	p := s.sec[secNotePosts]
	if e.noteOff > uint64(len(p)) {
		return noteIter{}
	}
	return noteIter{d: decoder{b: p[e.noteOff:]}, left: e.nNote}
}

func (it *noteIter) next() bool {
	if it.left == 0 || it.d.bad {
		return false
	}
	it.left--
	it.note += it.d.u32()
	if len(it.d.b) == 0 {
		it.d.bad = true
		return false
	}
	mask := it.d.b[0]
	it.d.b = it.d.b[1:]
	for f := range NoteFields {
		it.tf[f] = 0
		if mask&(1<<f) != 0 {
			it.tf[f] = it.d.u32()
		}
	}
	return !it.d.bad
}

// anchorIter walks a term's anchor postings.
type anchorIter struct {
	d         decoder
	left      uint64
	source    uint32
	key       uint32
	link, ctx uint32
}

func (s *Segment) anchorPostings(e termEntry) anchorIter {
	p := s.sec[secAnchorPosts]
	if e.anchorOff > uint64(len(p)) {
		return anchorIter{}
	}
	return anchorIter{d: decoder{b: p[e.anchorOff:]}, left: e.nAnchor}
}

func (it *anchorIter) next() bool {
	if it.left == 0 || it.d.bad {
		return false
	}
	it.left--
	// The usual posting: four varints of up to three bytes each, read
	// inline (a common word's anchor postings run to tens of thousands).
	if b := it.d.b; len(b) >= 12 {
		s, n1 := varint3(b)
		k, n2 := varint3(b[n1:])
		l, n3 := varint3(b[n1+n2:])
		c, n4 := varint3(b[n1+n2+n3:])
		if n1 != 0 && n2 != 0 && n3 != 0 && n4 != 0 {
			it.source += s
			it.key, it.link, it.ctx = k, l, c
			it.d.b = b[n1+n2+n3+n4:]
			return true
		}
	}
	it.source += it.d.u32()
	it.key, it.link, it.ctx = it.d.u32(), it.d.u32(), it.d.u32()
	return !it.d.bad
}

// varint3 decodes the varint at the start of b, which holds three bytes
// at least, if it has three bytes at most; n is 0 if not.
func varint3(b []byte) (v uint32, n int) {
	_ = b[2]
	v = uint32(b[0])
	if v < 0x80 {
		return v, 1
	}
	v = v&0x7f | uint32(b[1])<<7
	if b[1] < 0x80 {
		return v, 2
	}
	v = v&0x3fff | uint32(b[2])<<14
	if b[2] < 0x80 {
		return v, 3
	}
	return 0, 0
}

// multiIter walks the chunk postings of a query word's variants (usually
// one) as one list, without their positions: a chunk holding two variants
// is one posting with their frequencies summed.
//
// It decodes up to ahead postings before they are used, and asks for the
// rows the streaming pass will read for them while they wait: each
// posting's chunk row as it is decoded, and its note's row a few postings
// before it is used, once the chunk row has had time to arrive (rows.go).
type multiIter struct {
	its   []postIter
	live  []bool
	chunk uint32
	body  uint32
	head  uint32
	rows  rowAhead
}

// init sets m to the postings of es in segment s; lens, the segment's
// chunk lengths (nil: none), lets it decode ahead and prefetch (rows.go).
func (m *multiIter) init(s *Segment, es []termEntry, lens []chunkLen) {
	m.its, m.live = m.its[:0], m.live[:0]
	n := uint64(0)
	for _, e := range es {
		it := s.postings(e)
		it.noPos = true
		m.its = append(m.its, it)
		m.live = append(m.live, m.its[len(m.its)-1].next())
		n += e.nPost
	}
	m.rows.reset(s, n, lens)
}

// next moves m to its next posting; false at the end.
func (m *multiIter) next() bool {
	r := &m.rows
	if r.seg == nil { // a small segment: no decoding ahead
		p, ok := m.pull()
		m.chunk, m.body, m.head = p.chunk, p.body, p.head
		return ok
	}
	for r.n < ahead {
		p, ok := m.pull()
		if !ok {
			break
		}
		r.push(p)
	}
	if r.n == 0 {
		return false
	}
	p := r.pop()
	m.chunk, m.body, m.head = p.chunk, p.body, p.head
	return true
}

// pull decodes the next posting of the variants merged.
func (m *multiIter) pull() (posting, bool) {
	if len(m.its) == 1 { // the usual case: one variant
		if !m.live[0] {
			return posting{}, false
		}
		it := &m.its[0]
		p := posting{chunk: it.chunk, body: it.body, head: it.head}
		m.live[0] = it.next()
		return p, true
	}
	var p posting
	first := true
	for i := range m.its {
		if m.live[i] && (first || m.its[i].chunk < p.chunk) {
			p.chunk, first = m.its[i].chunk, false
		}
	}
	if first {
		return p, false
	}
	for i := range m.its {
		if m.live[i] && m.its[i].chunk == p.chunk {
			p.body += m.its[i].body
			p.head += m.its[i].head
			m.live[i] = m.its[i].next()
		}
	}
	return p, true
}

// positionsRaw returns the current posting's encoded positions, unread.
// It may be called once per posting, instead of positions.
func (it *postIter) positionsRaw() []byte {
	it.skipPositions()
	start := it.pos.b
	n := 0
	for ; it.posPending > 0; it.posPending-- {
		b := it.pos.b
		i := 0
		for i < len(b) && b[i] >= 0x80 {
			i++
		}
		if i >= len(b) {
			it.pos.bad, it.pos.b = true, nil
			it.posPending = 0
			return nil
		}
		it.pos.b = b[i+1:]
		n += i + 1
	}
	return start[:n:n]
}
