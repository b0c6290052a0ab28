package index

import (
	"encoding/binary"
	"errors"
)

// errCorrupt reports a stored value that does not decode.
var errCorrupt = errors.New("index: corrupt record")

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
