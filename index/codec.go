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

func appendUvarints(b []byte, vs ...uint32) []byte {
	for _, v := range vs {
		b = binary.AppendUvarint(b, uint64(v))
	}
	return b
}

func encodeForward(f *forward) []byte {
	size := 8 + len(f.chunks)*20
	for i, t := range f.terms {
		size += len(t) + 2 + len(f.postings[i])*5
	}
	b := make([]byte, 0, size)
	b = binary.AppendUvarint(b, uint64(len(f.terms)))
	for i, t := range f.terms {
		b = binary.AppendUvarint(b, uint64(len(t)))
		b = append(b, t...)
		b = binary.AppendUvarint(b, uint64(len(f.postings[i])))
		for _, p := range f.postings[i] {
			b = appendUvarints(b, p.ord, p.title, p.head, p.body)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(f.chunks)))
	for _, c := range f.chunks {
		b = appendUvarints(b, c.title, c.head, c.body, c.parent, c.lineStart, c.lineEnd)
		b = binary.BigEndian.AppendUint64(b, c.hash)
	}
	b = binary.AppendUvarint(b, uint64(len(f.headings)))
	for _, h := range f.headings {
		b = binary.AppendUvarint(b, uint64(len(h)))
		for _, s := range h {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
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
	f := &forward{terms: make([]string, 0, nt), postings: make([][]posting, 0, nt)}
	var v [4]uint64
	for i := uint64(0); i < nt; i++ {
		l, ok := next()
		if !ok || l > uint64(len(b)) {
			return nil, errCorrupt
		}
		f.terms = append(f.terms, string(b[:l]))
		b = b[l:]
		np, ok := next()
		if !ok || np > uint64(len(b)) {
			return nil, errCorrupt
		}
		ps := make([]posting, np)
		for j := range ps {
			for k := range v {
				if v[k], ok = next(); !ok || v[k] > 1<<32-1 {
					return nil, errCorrupt
				}
			}
			ps[j] = posting{uint32(v[0]), uint32(v[1]), uint32(v[2]), uint32(v[3])}
		}
		f.postings = append(f.postings, ps)
	}
	nc, ok := next()
	if !ok || nc > uint64(len(b)) {
		return nil, errCorrupt
	}
	f.chunks = make([]chunkMeta, nc)
	for i := range f.chunks {
		var v [6]uint64
		for j := range v {
			if v[j], ok = next(); !ok || v[j] > 1<<32-1 {
				return nil, errCorrupt
			}
		}
		if len(b) < 8 {
			return nil, errCorrupt
		}
		f.chunks[i] = chunkMeta{fieldLens{uint32(v[0]), uint32(v[1]), uint32(v[2])},
			uint32(v[3]), uint32(v[4]), uint32(v[5]), binary.BigEndian.Uint64(b)}
		b = b[8:]
	}
	nh, ok := next()
	if !ok || nh > uint64(len(b)) {
		return nil, errCorrupt
	}
	f.headings = make([][]string, nh)
	for i := range f.headings {
		n, ok := next()
		if !ok || n > uint64(len(b)) {
			return nil, errCorrupt
		}
		for j := uint64(0); j < n; j++ {
			l, ok := next()
			if !ok || l > uint64(len(b)) {
				return nil, errCorrupt
			}
			f.headings[i] = append(f.headings[i], string(b[:l]))
			b = b[l:]
		}
	}
	if len(b) != 0 {
		return nil, errCorrupt
	}
	return f, nil
}
