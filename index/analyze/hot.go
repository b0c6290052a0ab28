package analyze

import (
	"sync"
	"sync/atomic"
)

// hotCache is a goroutine's own table of the tokens it has analysed, in
// front of the memos. A vault's memo holds every word it has seen (47,000
// raw words at the scale benchmark's 10×), and a lookup in a map that
// size, behind a lock both workers take, cost ~300 ns: with a small
// direct-mapped cache in front, which answered 82–87 % of the tokens, the
// misses were a tenth of a cold index's CPU. This table holds every token
// it has met (up to 3/4 of hotMax slots; past that a new token takes its
// home slot) with the token's bytes in the slot, so a lookup reads one
// slot, and the CPU's caches keep the frequent words' slots close. Each
// Analyze call takes a table of its own (getHot), so goroutines never
// share one; the same raw token of the same kind always has the same term.
// Tokens longer than hotRaw bytes (rare) go to the memo every time.
type hotCache struct {
	slot  []hotSlot // a power of two of them, open addressing
	max   int       // the most slots it grows to: hotMax, or hotSmall
	used  int
	long  hotSlot // the answer for a token longer than hotRaw
	first [hotMin]hotSlot
}

type hotSlot struct {
	term string
	id   uint32
	n    uint8 // the raw token's length
	kind uint8 // the language + 1 of a word, gramKind for a gram; 0 = empty
	raw  [hotRaw]byte
}

const (
	hotRaw   = 26 // a slot is 48 bytes
	hotMin   = 1 << 10
	hotMax   = 1 << 16 // 3 MiB
	hotSmall = 1 << 13 // 384 KiB
	gramKind = uint8(numLangs) + 1
)

// newHotCache returns an empty table, in one allocation.
func newHotCache(max int) *hotCache {
	hc := &hotCache{max: max}
	hc.slot = hc.first[:]
	return hc
}

// hotHash hashes a token and its kind (FNV-1a).
func hotHash(kind uint8, tok []byte) uint32 {
	h := uint32(2166136261) ^ uint32(kind)
	for _, c := range tok {
		h = (h ^ uint32(c)) * 16777619
	}
	return h ^ h>>15
}

// cached returns the slot of hc that holds the term of a token of kind,
// filled from the memo if the token is new to hc.
func (a *Analyzer) cached(hc *hotCache, kind uint8, tok []byte) *hotSlot {
	if len(tok) > hotRaw {
		sl := &hc.long
		e := a.entry(kind, tok)
		sl.term, sl.id = e.term, e.id
		return sl
	}
	h := hotHash(kind, tok)
	mask := uint32(len(hc.slot) - 1)
	i := h & mask
	for range len(hc.slot) { // at most once round: a full table has no empty slot
		sl := &hc.slot[i]
		if sl.kind == 0 {
			break
		}
		if sl.kind == kind && int(sl.n) == len(tok) && string(sl.raw[:sl.n]) == string(tok) {
			return sl
		}
		i = (i + 1) & mask
	}
	e := a.entry(kind, tok)
	switch {
	case len(hc.slot) < hc.max && 2*(hc.used+1) > len(hc.slot):
		hc.grow()
		mask = uint32(len(hc.slot) - 1)
		for i = h & mask; hc.slot[i].kind != 0; i = (i + 1) & mask {
		}
	case hc.slot[i].kind != 0 || 4*(hc.used+1) > 3*len(hc.slot):
		// Full: the token takes its home slot. Only a token put in its
		// place leaves the count as it was; an empty home slot is one
		// more in use (counting it as a replacement let a large pass
		// fill the table and search it for an empty slot for ever).
		i = h & mask
		if hc.slot[i].kind != 0 {
			hc.used--
		}
	}
	hc.used++
	sl := &hc.slot[i]
	sl.kind, sl.n = kind, uint8(copy(sl.raw[:], tok))
	sl.term, sl.id = e.term, e.id
	return sl
}

// grow doubles hc's table.
func (hc *hotCache) grow() {
	old := hc.slot
	hc.slot = make([]hotSlot, 2*len(old))
	mask := uint32(len(hc.slot) - 1)
	for k := range old {
		sl := &old[k]
		if sl.kind == 0 {
			continue
		}
		i := hotHash(sl.kind, sl.raw[:sl.n]) & mask
		for hc.slot[i].kind != 0 {
			i = (i + 1) & mask
		}
		hc.slot[i] = *sl
	}
}

// keptCaches holds goroutines' tables between Analyze calls while
// KeepCaches is in effect. A pool drops what it holds at every second
// garbage collection it has not been used in between, and a large pass
// collects every fraction of a second: a cold index of the scale
// benchmark's 10× vault made 32 tables, each filled again from the memos
// (47,000 lookups), one a second.
type keptCaches struct {
	keep  atomic.Int32 // KeepCaches calls not yet released
	slots []atomic.Pointer[hotCache]
}

// KeepCaches keeps the goroutines' tables of tokens (one per processor, at
// most) from one Analyze call to the next until release is called, rather
// than in a pool that garbage collection empties: for a large pass, whose
// workers analyse text without pause. Calls nest.
func (a *Analyzer) KeepCaches() (release func()) {
	a.kept.keep.Add(1)
	return sync.OnceFunc(func() {
		if a.kept.keep.Add(-1) == 0 {
			for i := range a.kept.slots {
				if hc := a.kept.slots[i].Swap(nil); hc != nil {
					a.hot.Put(hc)
				}
			}
		}
	})
}

// getHot takes a table for an Analyze call: a kept one if any is free,
// else a large one during a large pass (KeepCaches in effect) and a small
// one otherwise. Outside a large pass the texts are a query, the passages
// of its results and the odd changed note: a table grown to 3 MiB on them
// no longer stays in the processor's caches between calls, and each
// lookup became a cache miss (83 % of the lookups' time, 10 % of the
// daemon's CPU answering SciFact's questions, under perf).
func (a *Analyzer) getHot() *hotCache {
	if a.kept.keep.Load() == 0 {
		return a.small.Get().(*hotCache)
	}
	for i := range a.kept.slots {
		if a.kept.slots[i].Load() != nil {
			if hc := a.kept.slots[i].Swap(nil); hc != nil {
				return hc
			}
		}
	}
	return a.hot.Get().(*hotCache)
}

// putHot gives back an Analyze call's table: kept while KeepCaches is in
// effect and a slot is free, else to its pool.
func (a *Analyzer) putHot(hc *hotCache) {
	if hc.max == hotSmall {
		a.small.Put(hc)
		return
	}
	if a.kept.keep.Load() > 0 {
		for i := range a.kept.slots {
			if a.kept.slots[i].CompareAndSwap(nil, hc) {
				return
			}
		}
	}
	a.hot.Put(hc)
}

// entry returns the memo entry of a token of kind.
func (a *Analyzer) entry(kind uint8, tok []byte) memoEntry {
	if kind == gramKind {
		return a.gram(tok)
	}
	return a.word(Lang(kind-1), tok)
}
