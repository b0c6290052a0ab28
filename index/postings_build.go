package index

import (
	"slices"
	"strings"
	"sync"
)

// termPosting is one chunk's frequencies of the term numbered term.
type termPosting struct {
	term int32
	posting
}

// postingsBuilder collects a document's postings chunk by chunk with one
// map lookup a token and no allocation per term or chunk; finish lays them
// out term-major in one slice. Builders are pooled: a worker reuses the
// map and slices of the previous document.
type postingsBuilder struct {
	idx   map[string]int32 // term → its number
	terms []string         // by number
	at    []int32          // by number: its entry in ents if ≥ from
	ents  []termPosting    // chunk-major
	from  int32            // first entry of the current chunk
	ord   uint32           // the current chunk
	buf   []byte           // scratch (hashing chunk text)
}

var builders = sync.Pool{New: func() any { return &postingsBuilder{idx: make(map[string]int32, 512)} }}

func getBuilder() *postingsBuilder { return builders.Get().(*postingsBuilder) }

// release empties b and returns it to the pool; nothing finish returned
// refers to its memory. The builder of a huge note is dropped instead, so
// that it does not pin its memory in the pool.
func (b *postingsBuilder) release() {
	if cap(b.ents) > 1<<16 || cap(b.buf) > 1<<16 {
		return
	}
	clear(b.idx)
	clear(b.terms)
	b.terms, b.at, b.ents, b.from, b.ord = b.terms[:0], b.at[:0], b.ents[:0], 0, 0
	builders.Put(b)
}

// chunk starts the postings of chunk ord.
func (b *postingsBuilder) chunk(ord uint32) {
	b.ord, b.from = ord, int32(len(b.ents))
}

// entry returns the current chunk's entry for term t, adding it if new.
func (b *postingsBuilder) entry(t string) *posting {
	i, ok := b.idx[t]
	if !ok {
		i = int32(len(b.terms))
		b.idx[t] = i
		b.terms = append(b.terms, t)
		b.at = append(b.at, -1)
	}
	j := b.at[i]
	if j < b.from {
		j = int32(len(b.ents))
		b.at[i] = j
		b.ents = append(b.ents, termPosting{i, posting{ord: b.ord}})
	}
	return &b.ents[j].posting
}

// finish returns the distinct terms, sorted, and their postings in chunk
// order, all in two fresh slices.
func (b *postingsBuilder) finish() (terms []string, postings [][]posting) {
	n := len(b.terms)
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return strings.Compare(b.terms[x], b.terms[y]) })
	// at is reused: first the count of each term, then its next slot.
	clear(b.at)
	for _, e := range b.ents {
		b.at[e.term]++
	}
	terms = make([]string, n)
	postings = make([][]posting, n)
	flat := make([]posting, len(b.ents))
	off := int32(0)
	for r, i := range order {
		c := b.at[i]
		terms[r] = b.terms[i]
		postings[r] = flat[off : off+c : off+c]
		b.at[i] = off
		off += c
	}
	for _, e := range b.ents {
		flat[b.at[e.term]] = e.posting
		b.at[e.term]++
	}
	return terms, postings
}
