package index

import (
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/ragd/ragd/index/segment"
)

// termOrder is a term number with the first eight bytes of its text, to
// sort by.
type termOrder struct {
	pre  uint64
	term int32
}

// prefix8 is the first eight bytes of s as a big-endian number, zeros
// past its end: prefix8(x) < prefix8(y) implies x < y, and x < y implies
// prefix8(x) <= prefix8(y).
func prefix8(s string) uint64 {
	if len(s) >= 8 { // one load, not a copy through memmove
		return binary.BigEndian.Uint64(unsafe.Slice(unsafe.StringData(s), 8))
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		v |= uint64(s[i]) << (56 - 8*i)
	}
	return v
}

// sortTerms sorts terms (texts by term number) into dst, which has their
// length: by their first byte (a counting sort), then within each first
// byte by prefix8 and, where that ties, by text (insertion sorts: a note's
// few hundred terms fall into a few dozen small groups).
func sortTerms(dst, terms []termOrder, texts []string) []termOrder {
	var start [257]int32
	for _, o := range terms {
		start[o.pre>>56+1]++
	}
	for c := range 256 {
		start[c+1] += start[c]
	}
	next := start
	for _, o := range terms {
		c := o.pre >> 56
		dst[next[c]] = o
		next[c]++
	}
	for c := range 256 {
		g := dst[start[c]:start[c+1]]
		for i := 1; i < len(g); i++ {
			o := g[i]
			j := i
			for ; j > 0 && termLess(o, g[j-1], texts); j-- {
				g[j] = g[j-1]
			}
			g[j] = o
		}
	}
	return dst
}

func termLess(x, y termOrder, texts []string) bool {
	if x.pre != y.pre {
		return x.pre < y.pre
	}
	return texts[x.term] < texts[y.term]
}

// encode writes note n's record (segment.EncodeNote's bytes) with the
// builder's terms sorted, each with its note-field frequencies and its
// postings by chunk (positions ascending), straight from the tokens: no
// Term or Posting is made. n's TermRecord and TermKeys are set to the
// record's terms.
func (b *noteBuilder) encode(n *segment.Note) []byte {
	nt := len(b.texts)
	// Group the tokens by term, stably: chunks and positions stay ascending.
	b.start = slices.Grow(b.start[:0], nt+1)[:nt+1]
	clear(b.start)
	start := b.start
	for _, tk := range b.toks {
		start[tk.term+1]++
	}
	for t := range nt {
		start[t+1] += start[t]
	}
	b.next = append(b.next[:0], start[:nt]...)
	next := b.next
	b.grouped = slices.Grow(b.grouped[:0], len(b.toks))[:len(b.toks)]
	for _, tk := range b.toks {
		b.grouped[next[tk.term]] = tk
		next[tk.term]++
	}
	// Sorted by text: by the first eight bytes as a number, then (rarely)
	// by the whole text.
	order := b.order[:0]
	size := segment.RecordSize(n) + 4*len(b.toks)
	for i, t := range b.texts {
		order = append(order, termOrder{prefix8(t), int32(i)})
		size += len(t) + 8
	}
	b.sorted = sortTerms(slices.Grow(b.sorted[:0], nt)[:nt], order, b.texts)
	order = b.sorted
	b.order = b.order[:0]
	e := &b.enc
	if cap(b.rec) < size {
		b.rec = make([]byte, 0, size)
	}
	e.Begin(b.rec[:0], n, nt)
	for _, o := range order {
		t := o.term
		g := b.grouped[start[t]:start[t+1]]
		postings := 0
		for j := range g {
			if j == 0 || g[j].ord != g[j-1].ord {
				postings++
			}
		}
		e.Term(b.texts[t], b.ids[t], &b.fields[t], postings)
		for j := 0; j < len(g); {
			ord, head, pos := g[j].ord, uint32(0), b.pos[:0]
			for ; j < len(g) && g[j].ord == ord; j++ {
				if g[j].pos == headTok {
					head++
				} else {
					pos = append(pos, g[j].pos)
				}
			}
			e.Posting(ord, head, pos)
			b.pos = pos
		}
	}
	rec, terms, keys, scratch := e.EndOwned(n.Anchors)
	n.TermRecord, n.TermKeys = terms, keys
	if cap(scratch) <= maxRecScratch {
		b.rec = scratch
	} else {
		b.rec = nil
	}
	return rec
}
