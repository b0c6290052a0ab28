package segment

import (
	"encoding/binary"
	"math"
)

// Block bounds (block-max). A term with more than blockSize chunk postings
// has its postings cut into blocks of about blockSize postings, each
// ending at the end of a note (a note's postings of a term are in one
// block), and for each block the blocks section holds a row — its last
// note and chunk, where it ends in the postings and the positions, how
// many postings end with it — and its impacts: a few (body frequency,
// heading frequency, body length) triples such that every chunk posting of
// the block has no more of either frequency and no shorter body than one
// of them, and the same for the block's notes with the frequencies summed
// over the note's postings and the length summed over all its chunks. The
// most a chunk or a note of the block can score for the term under any
// field weights, b and mean lengths follows (blockX), so a search skips
// the notes of blocks that cannot enter its heap, and a cursor skips whole
// blocks without decoding them. The writer derives them from the postings
// it has just written (endTerm, from what it noted of each: postInfo), so
// the builder and the merge share them.
//
// A term's block data in the blocks section: nBlk rows of blockRowSize
// bytes, then the impacts each row points at: a count and as many
// (body, heading, length) varint triples for the chunks, the same for the
// notes.

// blockSize is the number of chunk postings a block holds at least (but
// the last); a term with more has blocks.
const blockSize = 128

const blockRowSize = 24

// block row field offsets (u32 each).
const (
	brLastNote  = 0
	brLastChunk = 4
	brPostEnd   = 8  // end of the block in the term's postings, from their start
	brPosEnd    = 12 // end of its positions, from the term's first
	brCount     = 16 // postings up to the block's end
	brImp       = 20 // its impacts, from the start of the term's block data
)

// impactCap is the frequency from which impacts are no longer kept one per
// value: larger frequencies share one triple (the largest frequency, the
// shortest length among them).
const impactCap = 16

// impacts collects the triples of one block, chunks or notes.
type impacts struct {
	minLen [impactCap]uint32 // by frequency (no heading frequency): the shortest length + 1, 0 none
	capB   uint32            // the largest frequency ≥ impactCap
	// postings with a heading frequency share one triple
	hb, hh, hl uint32
	hAny       bool
}

func (im *impacts) add(b, h, l uint32) {
	if h > 0 {
		if !im.hAny || l < im.hl {
			im.hl = l
		}
		im.hb, im.hh, im.hAny = max(im.hb, b), max(im.hh, h), true
		return
	}
	i := min(b, impactCap-1)
	if i == impactCap-1 {
		im.capB = max(im.capB, b)
	}
	if im.minLen[i] == 0 || l+1 < im.minLen[i] {
		im.minLen[i] = l + 1
	}
}

// appendTo appends the triples that no other one dominates (more of each
// frequency, no longer) and resets im.
func (im *impacts) appendTo(dst []byte) []byte {
	var tr [impactCap + 1][3]uint32
	n := 0
	best := uint32(0) // the shortest length + 1 among larger frequencies
	for i := impactCap - 1; i >= 1; i-- {
		l := im.minLen[i]
		if l == 0 || best != 0 && l >= best {
			continue
		}
		best = l
		b := uint32(i)
		if i == impactCap-1 {
			b = im.capB
		}
		tr[n] = [3]uint32{b, 0, l - 1}
		n++
	}
	if im.hAny {
		tr[n] = [3]uint32{im.hb, im.hh, im.hl}
		n++
	}
	dst = binary.AppendUvarint(dst, uint64(n))
	for _, t := range tr[:n] {
		for _, v := range t {
			dst = binary.AppendUvarint(dst, uint64(v))
		}
	}
	*im = impacts{}
	return dst
}

// noteBodyLens returns the notes' body lengths summed over their chunks
// (as the chunk rows hold them), computed at the first call.
func (w *writer) noteBodyLens() []uint32 {
	if len(w.noteBody) == int(w.notes) {
		return w.noteBody
	}
	w.noteBody = make([]uint32, w.notes)
	rows := w.sec[secChunkRows]
	for c := 0; c+chunkRowSize <= len(rows); c += chunkRowSize {
		if n := le.Uint32(rows[c+crNote:]); n < w.notes {
			w.noteBody[n] += uint32(le.Uint16(rows[c+crBody:]))
		}
	}
	return w.noteBody
}

// writeBlocks appends the block data of the term whose chunk postings were
// just written (w.posts) and returns its number of blocks and offset.
func (w *writer) writeBlocks() (nBlk int, off int) {
	nb := w.noteBodyLens()
	rows := w.sec[secChunkRows]
	var blk, imp []byte
	var ci, ni impacts
	count, inBlock := uint32(0), 0
	note, last := uint32(0), uint32(0)
	sb, sh := uint32(0), uint32(0)
	var endAt, posEnd uint32 // where the last posting read ends in the postings and positions
	endBlock := func() {
		ni.add(sb, sh, nb[note])
		sb, sh = 0, 0
		var row [blockRowSize]byte
		le.PutUint32(row[brLastNote:], note)
		le.PutUint32(row[brLastChunk:], last)
		le.PutUint32(row[brPostEnd:], endAt)
		le.PutUint32(row[brPosEnd:], posEnd)
		le.PutUint32(row[brCount:], count)
		le.PutUint32(row[brImp:], uint32(len(imp)))
		blk = append(blk, row[:]...)
		imp = ci.appendTo(imp)
		imp = ni.appendTo(imp)
		inBlock = 0
	}
	for _, p := range w.posts {
		c := p.chunk
		if int(c+1)*chunkRowSize > len(rows) {
			break // cannot be: postings name the writer's chunks
		}
		r := rows[int(c)*chunkRowSize:]
		n := le.Uint32(r[crNote:])
		if n >= uint32(len(nb)) {
			break
		}
		if inBlock > 0 && n != note {
			if inBlock >= blockSize {
				endBlock()
			} else {
				ni.add(sb, sh, nb[note])
				sb, sh = 0, 0
			}
		}
		note, last = n, c
		sb += p.body
		sh += p.head
		ci.add(p.body, p.head, uint32(le.Uint16(r[crBody:])))
		count++
		inBlock++
		endAt, posEnd = p.postEnd, p.posEnd
	}
	if inBlock > 0 {
		endBlock()
	}
	nBlk = len(blk) / blockRowSize
	off = len(w.sec[secBlocks])
	for i := range nBlk {
		le.PutUint32(blk[i*blockRowSize+brImp:], le.Uint32(blk[i*blockRowSize+brImp:])+uint32(len(blk)))
	}
	w.sec[secBlocks] = append(w.sec[secBlocks], blk...)
	w.sec[secBlocks] = append(w.sec[secBlocks], imp...)
	return nBlk, off
}

// blockTable is a term's blocks in a segment.
type blockTable struct {
	data []byte // the term's block data: rows, then impacts
	n    int
}

// blocks returns term e's block table (empty when it has none or its
// rows do not fit the section).
func (s *Segment) blocks(e termEntry) blockTable {
	b := s.sec[secBlocks]
	if e.nBlk == 0 || e.blkOff > uint64(len(b)) || e.nBlk > (uint64(len(b))-e.blkOff)/blockRowSize {
		return blockTable{}
	}
	return blockTable{data: b[e.blkOff:], n: int(e.nBlk)}
}

func (t *blockTable) u32(i, f int) uint32 { return le.Uint32(t.data[i*blockRowSize+f:]) }

// blockX is the most a block's postings give a chunk (c) and a note (n)
// of the weighted frequency over length normalisation that BM25F
// saturates.
type blockX struct{ c, n float64 }

// x computes block i's blockX for p, the mean weighted chunk length avgW
// and the mean weighted note length avgL. A length counts only its body
// part (the others are not stored): the bound only grows. Unreadable
// impacts give +Inf.
func (t *blockTable) x(i int, p Params, avgW, avgL float64) blockX {
	off := t.u32(i, brImp)
	inf := blockX{c: math.Inf(1), n: math.Inf(1)}
	if uint64(off) > uint64(len(t.data)) {
		return inf
	}
	d := decoder{b: t.data[off:]}
	var x blockX
	for k, avg := range [2]float64{avgW, avgL} {
		m := 0.0
		for range d.count() {
			b, h, l := d.u32(), d.u32(), d.u32()
			m = max(m, (p.Body*float64(b)+p.Heading*float64(h))/(1-p.B+p.B*p.Body*float64(l)/avg))
		}
		if k == 0 {
			x.c = m
		} else {
			x.n = m
		}
	}
	if d.bad {
		return inf
	}
	return x
}

// jumpTo moves it on past the blocks whose postings all come before chunk
// c without decoding them; the postings after are read with next as
// before. It does nothing for a term without blocks.
func (it *postIter) jumpTo(c uint32) {
	t := &it.blk
	if t.n == 0 {
		return
	}
	done := it.nPost - it.left // postings decoded
	for it.bi < t.n && uint64(t.u32(it.bi, brCount)) <= done {
		it.bi++
	}
	j := -1
	for it.bi < t.n && t.u32(it.bi, brLastChunk) < c {
		j = it.bi
		it.bi++
	}
	if j < 0 {
		return
	}
	pe, qe, cnt := uint64(t.u32(j, brPostEnd)), uint64(t.u32(j, brPosEnd)), uint64(t.u32(j, brCount))
	if pe > uint64(len(it.start)) || qe > uint64(len(it.posStart)) || cnt > it.nPost || cnt < done {
		it.blk = blockTable{} // corrupt: read on without jumping
		return
	}
	it.d.b = it.start[pe:]
	it.pos.b = it.posStart[qe:]
	it.posPending, it.posSkip = 0, 0
	it.chunk = t.u32(j, brLastChunk)
	it.left = it.nPost - cnt
}

// skipTo moves m to its first posting at chunk c or after (postings
// before are passed over, whole blocks without decoding); false at the
// end.
func (m *multiIter) skipTo(c uint32) bool {
	if m.rows.dropBefore(c) {
		return m.next() // a posting decoded ahead is at c or after
	}
	for i := range m.its {
		it := &m.its[i]
		if !m.live[i] || it.chunk >= c {
			continue
		}
		it.jumpTo(c)
		m.live[i] = it.next()
		for m.live[i] && it.chunk < c {
			m.live[i] = it.next()
		}
	}
	return m.next()
}
