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

// forward is the f/<doc> record: what must be undone when the document
// changes (its distinct terms) and the per-chunk lengths BM25 needs at load.
type forward struct {
	terms []string
	lens  []fieldLens // indexed by chunk ordinal
}

func appendUvarints(b []byte, vs ...uint32) []byte {
	for _, v := range vs {
		b = binary.AppendUvarint(b, uint64(v))
	}
	return b
}

func encodePostings(ps []posting) []byte {
	b := make([]byte, 0, len(ps)*4)
	for _, p := range ps {
		b = appendUvarints(b, p.ord, p.title, p.head, p.body)
	}
	return b
}

func decodePostings(b []byte, fn func(p posting)) error {
	var vals [4]uint32
	for len(b) > 0 {
		for i := range vals {
			v, n := binary.Uvarint(b)
			if n <= 0 || v > 1<<32-1 {
				return errCorrupt
			}
			vals[i] = uint32(v)
			b = b[n:]
		}
		fn(posting{vals[0], vals[1], vals[2], vals[3]})
	}
	return nil
}

func encodeForward(f *forward) []byte {
	size := 8 + len(f.lens)*6
	for _, t := range f.terms {
		size += len(t) + 1
	}
	b := make([]byte, 0, size)
	b = binary.AppendUvarint(b, uint64(len(f.terms)))
	for _, t := range f.terms {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
	}
	b = binary.AppendUvarint(b, uint64(len(f.lens)))
	for _, l := range f.lens {
		b = appendUvarints(b, l.title, l.head, l.body)
	}
	return b
}

func decodeForward(b []byte) (*forward, error) {
	next := func() (uint64, bool) {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return 0, false
		}
		b = b[n:]
		return v, true
	}
	nt, ok := next()
	if !ok || nt > uint64(len(b)) {
		return nil, errCorrupt
	}
	f := &forward{terms: make([]string, 0, nt)}
	for i := uint64(0); i < nt; i++ {
		l, ok := next()
		if !ok || l > uint64(len(b)) {
			return nil, errCorrupt
		}
		f.terms = append(f.terms, string(b[:l]))
		b = b[l:]
	}
	nc, ok := next()
	if !ok || nc > uint64(len(b)) {
		return nil, errCorrupt
	}
	f.lens = make([]fieldLens, nc)
	for i := range f.lens {
		var v [3]uint64
		for j := range v {
			if v[j], ok = next(); !ok || v[j] > 1<<32-1 {
				return nil, errCorrupt
			}
		}
		f.lens[i] = fieldLens{uint32(v[0]), uint32(v[1]), uint32(v[2])}
	}
	if len(b) != 0 {
		return nil, errCorrupt
	}
	return f, nil
}
