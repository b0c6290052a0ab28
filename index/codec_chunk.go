package index

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// The chunks record (c/<doc>) holds every chunk and parent record of a
// document in one value: a format byte (1), the numbers of chunks and of
// parents as uvarints, the end of each record (the chunks', then the
// parents') as a 4-byte little-endian offset into the data, then the data:
// the records back to back. One key a document rather than one a chunk
// and one a parent — 335,000 fewer keys on the scale benchmark's 10×
// vault, each a skiplist insert, a value log entry and its share of the
// LSM tree's flushes and compactions (a cold index took ~2.5 % less CPU).
// A reader finds one record from the offsets and touches only its bytes:
// Badger hands out value-log values in place, without a copy.
//
// A chunk record: a format byte (0), then parent, start, length, first
// line, line count, tokens and page as varints, the heading path, the text
// hash (16 bytes when it is the usual 32 lower-case hex digits, else a
// length and the string) and, to the end of the record, the text.
//
// A parent record: start, length, first line, line count, then the heading
// path.

const (
	chunkFormatPlain = 0
	chunksFormat     = 1
	hashRaw          = 16 // hash field tag: 16 raw bytes follow
)

// encodeChunks returns the chunks record of a document's chunks and
// parents.
func encodeChunks(cs []Chunk, ps []Parent) []byte {
	n := len(cs) + len(ps)
	size := 1 + 2*binary.MaxVarintLen32 + 4*n
	for i := range cs {
		size += 32 + len(cs[i].Text) + hashRaw + headingSize(cs[i].Heading)
	}
	for i := range ps {
		size += 16 + headingSize(ps[i].Heading)
	}
	b := make([]byte, 0, size)
	b = append(b, chunksFormat)
	b = appendUvarints(b, uint32(len(cs)), uint32(len(ps)))
	ends := len(b)
	b = b[:ends+4*n]
	data := len(b)
	for i := range cs {
		b = appendChunk(b, &cs[i])
		binary.LittleEndian.PutUint32(b[ends+4*i:], uint32(len(b)-data))
	}
	for i := range ps {
		b = appendParent(b, &ps[i])
		binary.LittleEndian.PutUint32(b[ends+4*(len(cs)+i):], uint32(len(b)-data))
	}
	return b
}

// chunkRecords is a parsed chunks record.
type chunkRecords struct {
	chunks, parents int
	ends            []byte // 4 bytes a record
	data            []byte
}

// parseChunks reads the header of a chunks record; its records are checked
// when they are read.
func parseChunks(v []byte) (chunkRecords, error) {
	r := &reader{b: v}
	if r.byte() != chunksFormat {
		return chunkRecords{}, fmt.Errorf("%w: unknown chunks format", errCorrupt)
	}
	var cr chunkRecords
	cr.chunks, cr.parents = int(r.u32()), int(r.u32())
	n := cr.chunks + cr.parents
	if r.bad || n < 0 || n > len(r.b)/4 {
		return chunkRecords{}, errCorrupt
	}
	cr.ends, cr.data = r.b[:4*n], r.b[4*n:]
	return cr, nil
}

// record returns record i (the chunks first, then the parents).
func (cr chunkRecords) record(i int) ([]byte, error) {
	start := uint32(0)
	if i > 0 {
		start = binary.LittleEndian.Uint32(cr.ends[4*(i-1):])
	}
	end := binary.LittleEndian.Uint32(cr.ends[4*i:])
	if start > end || int64(end) > int64(len(cr.data)) {
		return nil, errCorrupt
	}
	return cr.data[start:end], nil
}

// chunk decodes chunk ord into c; false when the document has no such
// chunk.
func (cr chunkRecords) chunk(ord uint32, c *Chunk) (bool, error) {
	if int64(ord) >= int64(cr.chunks) {
		return false, nil
	}
	v, err := cr.record(int(ord))
	if err != nil {
		return false, err
	}
	return true, decodeChunk(v, c)
}

// parent decodes parent ord into p; false when the document has no such
// parent.
func (cr chunkRecords) parent(ord uint32, p *Parent) (bool, error) {
	if int64(ord) >= int64(cr.parents) {
		return false, nil
	}
	v, err := cr.record(cr.chunks + int(ord))
	if err != nil {
		return false, err
	}
	return true, decodeParent(v, p)
}

// all decodes every record.
func (cr chunkRecords) all() ([]Chunk, []Parent, error) {
	cs, ps := make([]Chunk, cr.chunks), make([]Parent, cr.parents)
	for i := range cs {
		if _, err := cr.chunk(uint32(i), &cs[i]); err != nil {
			return nil, nil, err
		}
	}
	for i := range ps {
		if _, err := cr.parent(uint32(i), &ps[i]); err != nil {
			return nil, nil, err
		}
	}
	return cs, ps, nil
}

func encodeChunk(c *Chunk) []byte {
	return appendChunk(make([]byte, 0, 32+len(c.Text)+len(c.Hash)/2+headingSize(c.Heading)), c)
}

func appendChunk(b []byte, c *Chunk) []byte {
	b = append(b, chunkFormatPlain)
	b = appendUvarints(b, c.Parent)
	b = appendInts(b, c.Start, c.End-c.Start, c.LineStart, c.LineEnd-c.LineStart, c.Tokens, c.Page)
	b = appendStrings(b, c.Heading)
	if isLowerHex(c.Hash, 2*hashRaw) {
		b = append(b, hashRaw)
		b, _ = hex.AppendDecode(b, []byte(c.Hash)) // valid: checked above
	} else {
		b = append(b, 0)
		b = appendString(b, c.Hash)
	}
	return append(b, c.Text...)
}

func decodeChunk(v []byte, c *Chunk) error {
	r := &reader{b: v}
	if r.byte() != chunkFormatPlain {
		return fmt.Errorf("%w: unknown chunk format", errCorrupt)
	}
	c.Parent = r.u32()
	c.Start = r.int()
	c.End = c.Start + r.int()
	c.LineStart = r.int()
	c.LineEnd = c.LineStart + r.int()
	c.Tokens, c.Page = r.int(), r.int()
	c.Heading = r.strings()
	switch r.byte() {
	case hashRaw:
		c.Hash = hex.EncodeToString(r.bytes(hashRaw))
	case 0:
		c.Hash = r.string()
	default:
		return errCorrupt
	}
	if r.bad {
		return errCorrupt
	}
	c.Text = string(r.b)
	return nil
}

func encodeParent(p *Parent) []byte {
	return appendParent(make([]byte, 0, 16+headingSize(p.Heading)), p)
}

func appendParent(b []byte, p *Parent) []byte {
	b = appendInts(b, p.Start, p.End-p.Start, p.LineStart, p.LineEnd-p.LineStart)
	return appendStrings(b, p.Heading)
}

func decodeParent(v []byte, p *Parent) error {
	r := &reader{b: v}
	p.Start = r.int()
	p.End = p.Start + r.int()
	p.LineStart = r.int()
	p.LineEnd = p.LineStart + r.int()
	p.Heading = r.strings()
	return r.done()
}

func headingSize(h []string) int {
	n := 1
	for _, s := range h {
		n += len(s) + 1
	}
	return n
}

// isLowerHex reports whether s is n lower-case hex digits (what
// hex.EncodeToString gives, so that decoding restores it exactly).
func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
