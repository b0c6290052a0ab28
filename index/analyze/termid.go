package analyze

import (
	"sync"
	"unsafe"
)

// Term numbers. Every term an Analyzer's memos hold is numbered once, in
// one table for the whole process, so that the same term has the same
// number whichever Analyzer made it and two different terms never share
// one. Consumers that gather terms (a note's builder, a segment's) index a
// slice by the number instead of hashing the term's text for every token;
// the numbers are dense from 1, so such a slice is as long as the
// vocabulary. Nothing stores them: they live as long as the process.
//
// The table also holds each numbered term's text, once, packed with the
// others in blocks, and the memos keep that copy: a note's terms are read
// again and again (sorted, written into its record, looked up by the
// segment builder), and a vocabulary of tens of thousands of terms packed
// together stays in the CPU's caches, where strings made one by one as
// words were first met lie scattered over the heap.

// maxTermIDs bounds the table; past it new terms get no number (0), and
// consumers find them by their text.
const maxTermIDs = 1 << 21

// termBlock is the size of the blocks the table's texts are packed in.
const termBlock = 64 << 10

var termIDs = struct {
	mu    sync.Mutex
	m     map[string]uint32
	texts []string // by number: the table's copy of each term
	block []byte   // the texts' current block
}{m: make(map[string]uint32), texts: []string{""}}

// TermID returns term's number: 0 for the empty term, and for a term first
// seen once the table is full.
func TermID(term string) uint32 {
	_, id := internTerm(term)
	return id
}

// internTerm returns term's number (as TermID) and the table's copy of its
// text (term itself when it has no number).
func internTerm(term string) (string, uint32) {
	if term == "" {
		return "", 0
	}
	termIDs.mu.Lock()
	defer termIDs.mu.Unlock()
	if id, ok := termIDs.m[term]; ok {
		return termIDs.texts[id], id
	}
	if len(termIDs.m) >= maxTermIDs {
		return term, 0
	}
	b := termIDs.block
	if cap(b)-len(b) < len(term) {
		b = make([]byte, 0, max(termBlock, len(term)))
	}
	start := len(b)
	b = append(b, term...)
	termIDs.block = b
	s := unsafe.String(&b[start], len(term))
	id := uint32(len(termIDs.texts))
	termIDs.m[s] = id
	termIDs.texts = append(termIDs.texts, s)
	return s, id
}

// TermIDs is one more than the largest term number handed out so far: a
// slice of that length can be indexed by any of them.
func TermIDs() int {
	termIDs.mu.Lock()
	defer termIDs.mu.Unlock()
	return len(termIDs.texts)
}
