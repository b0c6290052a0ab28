package segment

import (
	"runtime"
	"sync"
)

// anchorOnly reports whether group g occurs only as anchor text.
func (s *searcher) anchorOnly(g int) bool {
	if s.q.Resolve == nil || s.p.Anchor+s.p.AnchorContext <= 0 {
		return false
	}
	for k := range s.ents {
		for _, e := range s.ents[k][g] {
			if e.nAnchor > 0 {
				return true
			}
		}
	}
	return false
}

// anchors sums, per target note and query word, the anchor text of the
// links pointing at it, into the notes' anchor values (scratch.av; the
// notes get a slot each, as those with note fields do).
//
// A word's anchor postings in a segment are first summed per link target
// key (a float by key number: one array read and write a posting), then
// each key's sum goes to the notes the key names. Every key is resolved
// once a query (Query.Resolve), and located in the view once; both are
// kept with the segment while the view and the graph's names stay the
// same (keyTable). A note's links to itself say nothing about it: a
// posting whose source is among the notes its key names is kept apart
// and given to the key's other notes only.
func (s *searcher) anchors() {
	a := newAnchorSums(s)
	segs := s.v.segs
	// Every segment's table is taken first, in the view's order (two
	// searches take them in the same order), and kept to the end.
	tabs := make([]*keyTable, len(segs))
	total := uint64(0)
	for k, ss := range segs {
		tabs[k] = ss.seg.resolved.begin(s.q.ResolveGen, ss.seg.keys)
		s.scratch(k)
		for g := range s.groups {
			for _, e := range s.ents[k][g] {
				total += e.nAnchor
			}
		}
	}
	defer func() {
		for _, ss := range segs {
			ss.seg.resolved.end(s.q.ResolveGen)
		}
	}()
	// The first stage, each segment's postings summed by key, is the
	// segment's own; with several segments and many postings they are
	// summed at once, a segment a worker.
	workers := min(runtime.GOMAXPROCS(0), maxWorkers, len(segs))
	if total < 2*anchorParallel {
		workers = 1
	}
	atOnce(workers, len(segs), func(_, k int) { a.sumKeys(k, tabs[k]) })
	// The second, each key's sum handed to the notes it names, in the
	// view's order, word by word, as one search alone would add them.
	for k := range segs {
		a.giveKeys(k, tabs[k])
	}
}

// anchorParallel is half the least number of anchor postings a search
// has for its segments to be summed at once by several workers (anchors).
// (A variable for the tests.)
var anchorParallel uint64 = 16 << 10

// sumKeys sums segment k's anchor postings of every word by link target
// key, into the segment's scratch (kw, a word's keys kt, its self
// postings self): the first stage of anchors, which reads and writes
// nothing of another segment's but through locate, which it serialises.
func (a *anchorSums) sumKeys(k int, tab *keyTable) {
	s := a.s
	ss := s.v.segs[k]
	seg := ss.seg
	sc := s.sc[k]
	G := len(s.groups)
	if n := G * int(seg.keys); len(sc.kw) < n {
		sc.kw = make([]float32, n)
	}
	for len(sc.kt) < G {
		sc.kt = append(sc.kt, nil)
		sc.self = append(sc.self, nil)
	}
	for g := range s.groups {
		kw := sc.kw[g*int(seg.keys):][:seg.keys]
		touched, self := sc.kt[g][:0], sc.self[g][:0]
		var batch [anchorBatch]anchorPost
		for _, e := range s.ents[k][g] {
			it := seg.anchorPostings(e)
			for {
				// A batch of postings is decoded first, the table
				// rows of their keys asked for as they are: the keys
				// are scattered over tables of megabytes, and their
				// misses then overlap instead of coming one by one.
				n := 0
				for n < len(batch) && it.next() {
					key := it.key
					if key >= seg.keys || ss.deleted(it.source) {
						continue
					}
					w := float32(s.p.Anchor*float64(it.link) + s.p.AnchorContext*float64(it.ctx))
					if w <= 0 {
						continue
					}
					batch[n] = anchorPost{key, it.source, w}
					n++
					prefetchAt(&tab.st[key])
					prefetchAt(&kw[key])
				}
				if n == 0 {
					break
				}
				for _, b := range batch[:n] {
					key := b.key
					st := &tab.st[key]
					if st.view != a.view {
						a.mu.Lock()
						a.locate(k, seg, tab, key)
						a.mu.Unlock()
					}
					if st.self == selfNone {
						if st.located == 0 {
							continue
						}
					} else if st.self == b.source || st.self == selfMany && tab.names(&tab.keys[st.at-1], Ref{k, b.source}) {
						self = append(self, b) // postings whose source is among the notes their key names
						continue
					}
					if kw[key] == 0 {
						touched = append(touched, key)
					}
					kw[key] += b.w
				}
			}
		}
		sc.kt[g], sc.self[g] = touched, self
	}
}

// giveKeys hands the sums sumKeys made in segment k to the notes their
// keys name, and clears them: the second stage of anchors.
func (a *anchorSums) giveKeys(k int, tab *keyTable) {
	s := a.s
	seg := s.v.segs[k].seg
	sc := s.sc[k]
	for g := range s.groups {
		kw := sc.kw[g*int(seg.keys):][:seg.keys]
		touched := sc.kt[g]
		for i, key := range touched {
			// Two stages ahead: a key's table row, then, once it has
			// arrived, the slot of the note it names.
			if j := i + 2*keyAhead; j < len(touched) {
				prefetchAt(&tab.st[touched[j]])
				prefetchAt(&kw[touched[j]])
			}
			if j := i + keyAhead; j < len(touched) {
				if st := &tab.st[touched[j]]; st.located == 1 {
					s.scratch(int(st.seg)).prefetchSlot(st.note)
				}
			}
			w := kw[key]
			kw[key] = 0
			st := &tab.st[key]
			if st.located == 1 {
				a.add(Ref{int(st.seg), st.note}, g, w)
				continue
			}
			for _, ref := range tab.refs[st.off:][:st.located] {
				a.add(ref, g, w)
			}
		}
		for _, l := range sc.self[g] {
			for _, ref := range tab.refsOf(&tab.keys[tab.st[l.key].at-1]) {
				if ref != (Ref{k, l.source}) {
					a.add(ref, g, l.w)
				}
			}
		}
	}
}

// anchorBatch is how many anchor postings are decoded before they are
// summed (anchors).
const anchorBatch = 32

// keyAhead is how many keys ahead of its sum a key's target note's slot is
// asked for (and twice that, its table row).
const keyAhead = 8

// anchorPost is an anchor posting decoded and weighed.
type anchorPost struct {
	key, source uint32
	w           float32
}

// anchorSums is the state of one search's anchor sums.
type anchorSums struct {
	mu    sync.Mutex // serialises locate when segments are summed at once
	s     *searcher
	view  uint64
	cache map[string][]uint64 // keys resolved in this search (nil with one segment: no key is met twice)
	found map[uint64]Ref      // ids located in this search
	byNum map[uint32]int      // the view's segments by number (relocate)
}

// newAnchorSums returns the anchor sums of search s.
func newAnchorSums(s *searcher) *anchorSums {
	a := &anchorSums{s: s, view: s.v.uid(), found: make(map[uint64]Ref)}
	if len(s.v.segs) > 1 {
		a.cache = make(map[string][]uint64)
	}
	return a
}

// relocate returns where loc is in the search's view: its segment's place
// in the view, if the segment is in it and the note not deleted there.
func (a *anchorSums) relocate(loc noteLoc) (Ref, bool) {
	if loc.seg == 0 {
		return Ref{}, false
	}
	if a.byNum == nil {
		a.byNum = make(map[uint32]int, len(a.s.v.segs))
		for k, ss := range a.s.v.segs {
			a.byNum[ss.seg.num] = k
		}
	}
	k, ok := a.byNum[loc.seg]
	if !ok || a.s.v.segs[k].deleted(loc.note) {
		return Ref{}, false
	}
	return Ref{k, loc.note}, true
}

// add gives the note at ref weight w for word g: into its anchor
// values (scratch.av), which looseFields adds to its note values after
// its note fields, as one sum per word.
func (a *anchorSums) add(ref Ref, g int, w float32) {
	s := a.s
	G := len(s.groups)
	sc := s.scratch(ref.seg)
	sl := s.slotOf(sc, ref.note)
	if sc.amask[sl] == 0 {
		sc.aslots = append(sc.aslots, int32(sl))
	}
	sc.amask[sl] |= 1 << g
	sc.av[sl*G+g] += w
}

// locate resolves segment k's key (if its table has not) and locates the
// notes it names in the view.
func (a *anchorSums) locate(k int, seg *Segment, tab *keyTable, key uint32) {
	st := &tab.st[key]
	if st.at == 0 {
		// The key points into the segment, which the view keeps mapped
		// for the whole search.
		ref := seg.keyRef(key)
		ids, ok := a.cache[ref]
		if !ok {
			ids = a.s.q.Resolve(ref)
			if a.cache != nil {
				a.cache[ref] = ids
			}
		}
		tab.keys = append(tab.keys, resolvedKey{off: uint32(len(tab.ids)), n: uint32(len(ids))})
		tab.ids = append(tab.ids, ids...)
		tab.refs = append(tab.refs, make([]Ref, len(ids))...)
		tab.locs = append(tab.locs, make([]noteLoc, len(ids))...)
		st.at = int32(len(tab.keys))
	}
	t := &tab.keys[st.at-1]
	t.located = 0
	for i, id := range tab.ids[t.off:][:t.n] {
		// Where the note was found in an earlier view holds while its
		// segment is still in this one and the note not deleted there
		// (a changed note is deleted where it was and added anew).
		loc := &tab.locs[t.off+uint32(i)]
		ref, ok := a.relocate(*loc)
		if !ok {
			if ref, ok = a.found[id]; !ok {
				if ref, ok = a.s.v.Find(id); !ok {
					ref.seg = -1
				}
				a.found[id] = ref
			}
			*loc = noteLoc{}
			if ref.seg >= 0 {
				*loc = noteLoc{a.s.v.segs[ref.seg].seg.num, ref.note}
			}
		}
		if ref.seg >= 0 {
			tab.refs[t.off+t.located] = ref
			t.located++
		}
	}
	st.self, st.view = selfNone, a.view
	st.off, st.located, st.seg, st.note = t.off, t.located, -1, 0
	if t.located > 0 {
		r := tab.refs[t.off]
		st.seg, st.note = int32(r.seg), r.note
	}
	for _, ref := range tab.refsOf(t) {
		if ref.seg != k {
			continue
		}
		if st.self == selfNone {
			st.self = ref.note
		} else {
			st.self = selfMany
		}
	}
}

// resolvedKeys keeps a segment's anchor target keys as Query.Resolve
// answered them, for the searches given the same Query.ResolveGen (the
// store's graph names unchanged): resolving a key costs a map lookup by
// string, and a common word's anchor postings name hundreds of keys.
type resolvedKeys struct {
	mu   sync.Mutex
	gen  uint64
	keys keyTable
}

// keyTable holds resolved keys by key number. The ids a key resolved to
// and the notes they are located at in the view are kept in two arenas, a
// slot of each per id (an id is at one place in a view at most): a key
// costs a few dozen bytes, not a record with two slices of its own.
type keyTable struct {
	st   []keyState // by key number
	keys []resolvedKey
	ids  []uint64
	refs []Ref     // in the view of the key's keyState; located of them
	locs []noteLoc // by id: where it was last found, whatever the view
}

// noteLoc is where a note was found: its segment's number (Segment.num;
// 0 none) and the note's number in it.
type noteLoc struct{ seg, note uint32 }

// keyState is what a search reads of a key at each of its postings, and
// where the notes it names are: from off in the refs arena, located of
// them, the first also here (most keys name one note: a posting's key then
// costs one read of the table).
type keyState struct {
	off, located uint32
	seg          int32
	note         uint32
	at           int32 // 1 + index into keys; 0: not resolved
	// self is the note of this segment the key names (selfNone: none,
	// selfMany: more than one), in view.
	self uint32
	view uint64 // the view the key was located in; 0 none
}

const (
	selfNone = ^uint32(0)
	selfMany = ^uint32(0) - 1
)

// resolvedKey is where a resolved key's ids (n of them, from off in the
// ids arena) and their located notes (located of them, from off in the refs
// arena: live notes only, in the view its keyState names) are.
type resolvedKey struct {
	off, n, located uint32
}

// refsOf returns the notes resolved key t names in its view.
func (tab *keyTable) refsOf(t *resolvedKey) []Ref { return tab.refs[t.off:][:t.located] }

// names reports whether resolved key t names the note at ref.
func (tab *keyTable) names(t *resolvedKey, ref Ref) bool {
	for _, r := range tab.refsOf(t) {
		if r == ref {
			return true
		}
	}
	return false
}

// maxResolved caps the ids a segment's table keeps resolved (about 40
// bytes each, with the key's share of the table by key number): a 50×
// vault's segments hold ~200,000 keys each, and a cap below that made
// every common word's search resolve its keys again.
const maxResolved = 1 << 21

// begin returns the key table of a search with generation gen over a
// segment with n keys: the kept one, locked until end, or without a
// generation one of its own.
func (r *resolvedKeys) begin(gen uint64, n uint32) *keyTable {
	if gen == 0 {
		return &keyTable{st: make([]keyState, n)}
	}
	r.mu.Lock()
	if r.gen != gen || r.keys.st == nil || len(r.keys.ids) > maxResolved {
		r.gen, r.keys = gen, keyTable{st: make([]keyState, n)}
	}
	return &r.keys
}

// end releases what begin took for generation gen.
func (r *resolvedKeys) end(gen uint64) {
	if gen != 0 {
		r.mu.Unlock()
	}
}
