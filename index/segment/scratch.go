package segment

import "sync"

// scratch is a segment's per-query working memory, pooled.
type scratch struct {
	acc     []float32      // by chunk: the chunk's own evidence
	mask    []uint32       // by chunk: query words matched
	touched []uint32       // chunks with acc set
	more    []*touchedList // more such, one list a range of notes scored apart (parallel.go)
	slot    []int32        // by note: 1 + index into the note values, 0 none
	notes   []uint32       // notes with a slot
	tv, rv  []float32      // note values by slot×groups: title tf, other fields
	nmask   []uint32       // by slot: words matched in note fields
	agg     []int32        // by note: 1 + index into aggs
	aggs    []noteAgg
	rt      []float32 // rows of groups, by agg: Σ over the note's chunk's weighted field frequencies
	// The word-by-word scorer of the tests (taat_test.go): by chunk,
	// 1 + index of its row in xr, and rows of groups, a chunk's own
	// weighted field frequencies.
	xi []int32
	xr []float32
	// By slot×groups, a note's anchor text weights, added to rv after
	// its note fields (anchors.go); by slot the words given some, and the
	// slots given some.
	av     []float32
	amask  []uint32
	aslots []int32
	loose  []uint64 // by note, a bitset: the notes with a slot
	// By word and link target key (word g's at kw[g*keys+key]): the anchor
	// weights (zero between searches), and per word the keys given some
	// and the postings of a key's own notes (anchors.go).
	kw   []float32
	kt   [][]uint32
	self [][]anchorPost
}

type noteAgg struct {
	note      uint32
	best      uint32
	bestScore float32
	mask      uint32
}

var scratchPool sync.Pool

// touchedPool holds the lists of touched chunks of ranges scored apart
// (*touchedList).
var touchedPool sync.Pool

// touchedList is a range's list of touched chunks.
type touchedList struct{ c []uint32 }

// getTouched returns an empty list from the pool, or a new one.
func getTouched() *touchedList {
	if t, _ := touchedPool.Get().(*touchedList); t != nil {
		t.c = t.c[:0]
		return t
	}
	return &touchedList{}
}

// putTouched gives a list back, unless an exceptional query grew it.
func putTouched(t *touchedList) {
	if cap(t.c) <= 1<<20 {
		touchedPool.Put(t)
	}
}

func getScratch(chunks, notes uint32) *scratch {
	sc, _ := scratchPool.Get().(*scratch)
	if sc == nil {
		sc = &scratch{}
	}
	if uint32(len(sc.acc)) < chunks {
		sc.acc = make([]float32, chunks+chunks/4)
		sc.mask = make([]uint32, chunks+chunks/4)
	}
	if uint32(len(sc.slot)) < notes {
		sc.slot = make([]int32, notes+notes/4)
		sc.agg = make([]int32, notes+notes/4)
	}
	if w := int(notes+63) / 64; len(sc.loose) < w {
		sc.loose = make([]uint64, w+w/4)
	}
	return sc
}

// prefetchSlot asks for note n's slot (a hint: n may be out of range).
func (sc *scratch) prefetchSlot(n uint32) {
	if n < uint32(len(sc.slot)) {
		prefetchAt(&sc.slot[n])
	}
}

func (sc *scratch) release() {
	for _, c := range sc.touched {
		sc.acc[c], sc.mask[c] = 0, 0
	}
	for _, t := range sc.more {
		for _, c := range t.c {
			sc.acc[c], sc.mask[c] = 0, 0
		}
		putTouched(t)
	}
	clear(sc.more)
	sc.more = sc.more[:0]
	if sc.xi != nil {
		clear(sc.xi)
	}
	for _, n := range sc.notes {
		sc.slot[n] = 0
		sc.loose[n>>6] = 0
	}
	for _, a := range sc.aggs {
		sc.agg[a.note] = 0
	}
	sc.touched, sc.notes, sc.aggs = sc.touched[:0], sc.notes[:0], sc.aggs[:0]
	sc.tv, sc.rv, sc.nmask = sc.tv[:0], sc.rv[:0], sc.nmask[:0]
	sc.av, sc.amask, sc.aslots = sc.av[:0], sc.amask[:0], sc.aslots[:0]
	sc.rt, sc.xr = sc.rt[:0], sc.xr[:0]
	if len(sc.acc) > 1<<22 || cap(sc.touched) > 1<<20 {
		return // do not pin the memory of an exceptional query
	}
	scratchPool.Put(sc)
}
