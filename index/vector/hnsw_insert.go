package vector

import (
	"math"
	"slices"
)

// Add inserts vec under key (Algorithm 1, INSERT), replacing any vector
// already stored under key. Adds from several goroutines run in parallel.
func (h *HNSW) Add(key Key, vec []float32) {
	v := normalized(vec, h.dims)
	h.writers.RLock()
	defer h.writers.RUnlock()
	for {
		h.mu.RLock()
		id, level, st := h.allocate(key, v)
		switch st {
		case allocated:
			h.link(id, level)
			h.mu.RUnlock()
			return
		case keyExists:
			h.mu.RUnlock()
			h.mu.Lock()
			h.deleteLocked(key)
			h.mu.Unlock()
		case slabFull:
			h.mu.RUnlock()
			h.mu.Lock()
			h.growLocked(len(h.keys) + 1)
			h.mu.Unlock()
		}
	}
}

type allocStatus int

const (
	allocated allocStatus = iota
	keyExists
	slabFull
)

// allocate claims a slot for key and stores its vector, key and level. The
// slot is not yet reachable from the graph. mu is held (shared or not).
func (h *HNSW) allocate(key Key, v []float32) (uint32, int, allocStatus) {
	h.alloc.Lock()
	defer h.alloc.Unlock()
	if _, ok := h.ids[key]; ok {
		return 0, 0, keyExists
	}
	var id uint32
	switch {
	case len(h.free) > 0:
		id = h.free[len(h.free)-1]
		h.free = h.free[:len(h.free)-1]
	case h.n < len(h.keys):
		id = uint32(h.n)
		h.n++
	default:
		return 0, 0, slabFull
	}
	level := h.randomLevel()
	h.ids[key] = id
	h.live++
	h.keys[id] = key
	h.levels[id] = uint8(level)
	h.state[id] = slotLive
	copy(h.vec(id), v)
	h.links0[int(id)*(h.m0+1)] = 0
	if level > 0 {
		h.upper[id] = make([]uint32, level*(h.m+1))
	} else {
		h.upper[id] = nil
	}
	return id, level, allocated
}

// randomLevel draws ⌊-ln(U)·mL⌋ with mL = 1/ln(M); h.alloc is held.
func (h *HNSW) randomLevel() int {
	u := 1 - h.rng.Float64() // (0, 1]
	return min(int(-math.Log(u)*h.levelMult), maxLevel)
}

// link connects the allocated slot q into every layer up to level.
func (h *HNSW) link(q uint32, level int) {
	ep, top := h.loadEntry()
	if ep == none || level > top {
		// Empty graph or a new top layer: serialise with other such inserts,
		// and keep the lock until q is the entry point.
		h.epMu.Lock()
		ep, top = h.loadEntry()
		if ep == none {
			h.storeEntry(q, level)
			h.epMu.Unlock()
			return
		}
		if level > top {
			defer h.epMu.Unlock()
			defer h.storeEntry(q, level)
		} else {
			h.epMu.Unlock()
		}
	}
	s := h.getScratch()
	defer h.putScratch(s)
	v := h.vec(q)
	cur := cand{ep, -dot(v, h.vec(ep))}
	for l := top; l > level; l-- {
		cur = h.greedy(v, cur, l, s)
	}
	admit := func(id uint32) bool { return id != q && h.state[id] == slotLive }
	for l := min(level, top); l >= 0; l-- {
		h.searchLayer(v, cur, h.efC, l, admit, s)
		w := s.res.sortedAscending()
		if len(w) == 0 {
			continue // only tombstones reachable here: stay on cur
		}
		cur = w[0]
		s.sel = h.selectNeighbors(w, h.m, s.sel[:0])
		h.writeLinks(q, l, s.sel)
		for _, e := range s.sel {
			h.addLink(e.id, q, l, s)
		}
	}
}

// addLink adds q to e's list on layer l; when the list is full it is
// re-chosen by the heuristic from its members plus q (as hnswlib does).
func (h *HNSW) addLink(e, q uint32, l int, s *scratch) {
	mu := h.stripe(e)
	mu.Lock()
	defer mu.Unlock()
	b := h.block(e, l)
	n := int(b[0])
	if slices.Contains(b[1:1+n], q) {
		return
	}
	if n < h.maxLinks(l) {
		b[1+n] = q
		b[0]++
		return
	}
	ve := h.vec(e)
	s.tmp = s.tmp[:0]
	for _, x := range b[1 : 1+n] {
		s.tmp = append(s.tmp, cand{x, -dot(ve, h.vec(x))})
	}
	s.tmp = append(s.tmp, cand{q, -dot(ve, h.vec(q))})
	sortCands(s.tmp)
	sel := h.selectNeighbors(s.tmp, h.maxLinks(l), nil)
	h.setBlock(b, sel)
}

// selectNeighbors is Algorithm 4 (SELECT-NEIGHBORS-HEURISTIC, without
// extending candidates or keeping pruned ones, as in hnswlib): candidates,
// sorted closest first to the base node, are taken in order, and one is
// kept only if it is closer to the base than to every neighbour already
// kept. This keeps links pointing in diverse directions, which is what
// makes clustered data navigable. The result is appended to out.
func (h *HNSW) selectNeighbors(cands []cand, m int, out []cand) []cand {
	if len(cands) <= 1 {
		return append(out, cands...)
	}
	start := len(out)
	for _, c := range cands {
		if len(out)-start >= m {
			break
		}
		vc := h.vec(c.id)
		good := true
		for _, r := range out[start:] {
			if -dot(vc, h.vec(r.id)) < c.d {
				good = false
				break
			}
		}
		if good {
			out = append(out, c)
		}
	}
	return out
}

func sortCands(cs []cand) {
	slices.SortFunc(cs, func(a, b cand) int {
		switch {
		case a.d < b.d:
			return -1
		case a.d > b.d:
			return 1
		}
		return int(a.id) - int(b.id)
	})
}
