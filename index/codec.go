package index

import (
	"encoding/binary"
	"errors"
)

// errCorrupt reports a stored value that does not decode.
var errCorrupt = errors.New("index: corrupt record")

// posting is one chunk's term frequencies for one term, per field.
type posting struct {
	ord               uint32
	title, head, body uint32
}

// fieldLens are one chunk's analysed lengths per field.
type fieldLens struct {
	title, head, body uint32
}

// chunkMeta is what a search result needs of a chunk without reading its
// record: its field lengths, parent section and line range.
type chunkMeta struct {
	fieldLens
	parent, lineStart, lineEnd uint32
	// hash is the first 8 bytes of the chunk text's SHA-256: the key of
	// its embedding (vectors are stored and reused by content).
	hash uint64
}

// forward is the f/<doc> record, the document's postings block: for each
// distinct term (sorted) its per-chunk frequencies, and the per-chunk field
// lengths. It is everything BM25 needs of the document, in one value, so a
// document's postings are written, replaced and deleted with one key.
type forward struct {
	terms    []string
	postings [][]posting // parallel to terms
	chunks   []chunkMeta // indexed by chunk ordinal
	headings [][]string  // heading path of each parent section
}

// Record encodings. Every value but the document record (JSON, read by
// people in dumps) is binary: varints, strings as a length and bytes. The
// first versions stored JSON, which for the chunk and graph records was a
// third of their size in field names and quoting, and the most expensive
// thing to encode and decode. The decoders never trust a length: a corrupt
// record gives errCorrupt, not a panic or a huge allocation.

func appendUvarints(b []byte, vs ...uint32) []byte {
	for _, v := range vs {
		b = binary.AppendUvarint(b, uint64(v))
	}
	return b
}

func appendInts(b []byte, vs ...int) []byte {
	for _, v := range vs {
		b = binary.AppendVarint(b, int64(v))
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrings(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

// reader decodes a record; after the first error every read returns zero
// values and ok reports false.
type reader struct {
	b   []byte
	bad bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) u32() uint32 {
	v := r.uvarint()
	if v > 1<<32-1 {
		r.bad, r.b = true, nil
		return 0
	}
	return uint32(v)
}

func (r *reader) int() int {
	v, n := binary.Varint(r.b)
	if n <= 0 || v != int64(int(v)) {
		r.bad, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return int(v)
}

// count reads a number of items that each take at least one byte.
func (r *reader) count() int {
	v := r.uvarint()
	if v > uint64(len(r.b)) {
		r.bad, r.b = true, nil
		return 0
	}
	return int(v)
}

func (r *reader) bytes(n int) []byte {
	if n < 0 || n > len(r.b) {
		r.bad, r.b = true, nil
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) string() string { return string(r.bytes(r.count())) }

func (r *reader) strings() []string {
	n := r.count()
	if n == 0 {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = r.string()
	}
	return ss
}

// done reports whether the record decoded cleanly and completely.
func (r *reader) done() error {
	if r.bad || len(r.b) != 0 {
		return errCorrupt
	}
	return nil
}

// The postings block: the number of distinct terms; per term (sorted) the
// length of the prefix it shares with the previous term, the rest of its
// bytes, the number of its postings and per posting the ordinal (a zigzag
// delta from the previous one) and body tf<<2 | title?<<1 | heading?,
// followed by the title and heading tfs that are not zero; then per chunk
// its field lengths, parent, line range and text hash (8 bytes); then the
// heading path of each parent.

func encodeForward(f *forward) []byte {
	size := 8 + len(f.chunks)*20
	for i, t := range f.terms {
		size += len(t)/2 + 3 + len(f.postings[i])*2
	}
	b := make([]byte, 0, size)
	b = binary.AppendUvarint(b, uint64(len(f.terms)))
	prev := ""
	for i, t := range f.terms {
		shared := 0
		for shared < len(t) && shared < len(prev) && t[shared] == prev[shared] {
			shared++
		}
		b = binary.AppendUvarint(b, uint64(shared))
		b = appendString(b, t[shared:])
		prev = t
		b = binary.AppendUvarint(b, uint64(len(f.postings[i])))
		last := int64(0)
		for _, p := range f.postings[i] {
			b = binary.AppendVarint(b, int64(p.ord)-last)
			last = int64(p.ord)
			flags := uint64(p.body) << 2
			if p.title > 0 {
				flags |= 2
			}
			if p.head > 0 {
				flags |= 1
			}
			b = binary.AppendUvarint(b, flags)
			if p.title > 0 {
				b = binary.AppendUvarint(b, uint64(p.title))
			}
			if p.head > 0 {
				b = binary.AppendUvarint(b, uint64(p.head))
			}
		}
	}
	b = binary.AppendUvarint(b, uint64(len(f.chunks)))
	for _, c := range f.chunks {
		b = appendUvarints(b, c.title, c.head, c.body, c.parent, c.lineStart, c.lineEnd)
		b = binary.BigEndian.AppendUint64(b, c.hash)
	}
	b = binary.AppendUvarint(b, uint64(len(f.headings)))
	for _, h := range f.headings {
		b = appendStrings(b, h)
	}
	return b
}

func decodeForward(v []byte) (*forward, error) {
	r := &reader{b: v}
	nt := r.count()
	f := &forward{terms: make([]string, nt), postings: make([][]posting, nt)}
	// All postings in one slice, cut per term at the end (appending may
	// move it meanwhile).
	counts := make([]int, nt)
	flat := make([]posting, 0, len(v)/3)
	var term []byte
	for i := 0; i < nt && !r.bad; i++ {
		shared := r.uvarint()
		if shared > uint64(len(term)) {
			return nil, errCorrupt
		}
		term = append(term[:shared], r.bytes(r.count())...)
		f.terms[i] = string(term)
		np := r.count()
		counts[i] = np
		last := int64(0)
		for j := 0; j < np && !r.bad; j++ {
			d, n := binary.Varint(r.b)
			if n <= 0 || last+d < 0 || last+d > 1<<32-1 {
				return nil, errCorrupt
			}
			r.b = r.b[n:]
			last += d
			flags := r.uvarint()
			if flags>>2 > 1<<32-1 {
				return nil, errCorrupt
			}
			p := posting{ord: uint32(last), body: uint32(flags >> 2)}
			if flags&2 != 0 {
				p.title = r.u32()
			}
			if flags&1 != 0 {
				p.head = r.u32()
			}
			flat = append(flat, p)
		}
	}
	if r.bad {
		return nil, errCorrupt
	}
	off := 0
	for i, n := range counts {
		f.postings[i] = flat[off : off+n : off+n]
		off += n
	}
	f.chunks = make([]chunkMeta, r.count())
	for i := range f.chunks {
		c := &f.chunks[i]
		c.title, c.head, c.body, c.parent, c.lineStart, c.lineEnd = r.u32(), r.u32(), r.u32(), r.u32(), r.u32(), r.u32()
		if h := r.bytes(8); h != nil {
			c.hash = binary.BigEndian.Uint64(h)
		}
	}
	f.headings = make([][]string, r.count())
	for i := range f.headings {
		f.headings[i] = r.strings()
	}
	if err := r.done(); err != nil {
		return nil, err
	}
	return f, nil
}
