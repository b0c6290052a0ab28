package analyze

import "sync"

// Term numbers. Every term an Analyzer's memos hold is numbered once, in
// one table for the whole process, so that the same term has the same
// number whichever Analyzer made it and two different terms never share
// one. Consumers that gather terms (a note's builder, a segment's) index a
// slice by the number instead of hashing the term's text for every token;
// the numbers are dense from 1, so such a slice is as long as the
// vocabulary. Nothing stores them: they live as long as the process.

// maxTermIDs bounds the table; past it new terms get no number (0), and
// consumers find them by their text.
const maxTermIDs = 1 << 21

var termIDs = struct {
	mu sync.Mutex
	m  map[string]uint32
}{m: make(map[string]uint32)}

// TermID returns term's number: 0 for the empty term, and for a term first
// seen once the table is full.
func TermID(term string) uint32 {
	if term == "" {
		return 0
	}
	termIDs.mu.Lock()
	defer termIDs.mu.Unlock()
	if id, ok := termIDs.m[term]; ok {
		return id
	}
	if len(termIDs.m) >= maxTermIDs {
		return 0
	}
	id := uint32(len(termIDs.m) + 1)
	termIDs.m[term] = id
	return id
}

// TermIDs is one more than the largest term number handed out so far: a
// slice of that length can be indexed by any of them.
func TermIDs() int {
	termIDs.mu.Lock()
	defer termIDs.mu.Unlock()
	return len(termIDs.m) + 1
}
