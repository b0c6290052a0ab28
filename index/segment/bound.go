package segment

import "sync"

// The most a word's chunk postings can give a chunk (x = its weighted
// frequency over the chunk's length normalisation) is found by reading its
// postings once and kept with the segment, which never changes: the search
// then bounds a word by idf·sat(x) in notes where it is in no note field
// and no anchor text, instead of by the saturation limit (prune.go).

// boundKey is what a chunk bound depends on besides the term.
type boundKey struct {
	term                 uint32
	body, heading, title float64
	b                    float64
}

// chunkBound is a term's largest x in a segment, for a mean chunk length.
type chunkBound struct {
	x    float64
	avgW float64
}

// maxBounds caps the bounds a segment keeps (they are ~64 bytes each).
const maxBounds = 1 << 16

type boundCache struct {
	mu sync.Mutex
	m  map[boundKey]chunkBound
}

// chunkBound returns the largest x = (Body·body + Heading·head)/bc that
// term e gives any chunk of the segment, with bc = 1 − B + B·l/avgW. A
// bound found for another mean length still holds once scaled: bc shrinks
// by at most avgW'/avgW when the mean grows from avgW' to avgW.
func (s *Segment) chunkBound(e termEntry, p Params, avgW float64) float64 {
	k := boundKey{term: e.ord, body: p.Body, heading: p.Heading, title: p.Title, b: p.B}
	s.bounds.mu.Lock()
	cb, ok := s.bounds.m[k]
	s.bounds.mu.Unlock()
	if ok {
		return cb.x * max(1, avgW/cb.avgW)
	}
	x := 0.0
	it := s.postings(e)
	it.noPos = true
	for it.next() {
		if it.chunk >= s.chunks {
			break
		}
		r := s.chunkRow(it.chunk)
		l := p.Title*float64(le.Uint16(r[crTitle:])) + p.Heading*float64(le.Uint16(r[crHead:])) +
			p.Body*float64(le.Uint16(r[crBody:]))
		x = max(x, (p.Body*float64(it.body)+p.Heading*float64(it.head))/(1-p.B+p.B*l/avgW))
	}
	s.bounds.mu.Lock()
	if s.bounds.m == nil {
		s.bounds.m = make(map[boundKey]chunkBound)
	}
	if len(s.bounds.m) < maxBounds {
		s.bounds.m[k] = chunkBound{x, avgW}
	}
	s.bounds.mu.Unlock()
	return x
}

// noteLens are the notes' weighted lengths (every chunk's heading and body,
// the title once) for one set of field weights, computed at the first
// search that needs them and kept with the segment.
type noteLens struct {
	mu                   sync.Mutex
	body, heading, title float64
	l                    []float64
}

// noteLen returns note n's weighted length for p's field weights: the sum
// wholeNote would compute, in the same order.
func (s *Segment) noteLen(n uint32, p Params) float64 {
	nl := &s.lens
	nl.mu.Lock()
	if nl.l == nil || nl.body != p.Body || nl.heading != p.Heading || nl.title != p.Title {
		l := make([]float64, s.notes)
		for i := range l {
			l[i] = s.sumLen(uint32(i), p)
		}
		nl.l, nl.body, nl.heading, nl.title = l, p.Body, p.Heading, p.Title
	}
	l := nl.l
	nl.mu.Unlock()
	return l[n]
}

// sumLen adds up note n's weighted length.
func (s *Segment) sumLen(n uint32, p Params) float64 {
	first, cnt := s.NoteChunks(n)
	l := 0.0
	for c := first; c < first+cnt; c++ {
		r := s.chunkRow(c)
		l += p.Heading*float64(le.Uint16(r[crHead:])) + p.Body*float64(le.Uint16(r[crBody:]))
	}
	if cnt > 0 {
		l += p.Title * float64(le.Uint16(s.chunkRow(first)[crTitle:]))
	}
	return l
}
