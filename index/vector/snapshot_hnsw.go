package vector

import "math/rand"

// encode writes the HNSW payload (format in snapshot.go); mu is held.
func (h *HNSW) encode(e *encoder) {
	e.u32(uint32(h.dims))
	e.u32(uint32(h.m))
	e.u32(uint32(h.efC))
	e.u32(uint32(h.efSearch.Load()))
	e.u64(uint64(h.seed))
	e.u32(uint32(h.n))
	ep, top := h.loadEntry()
	e.u32(ep)
	e.u32(uint32(top))
	for id := 0; id < h.n; id++ {
		e.u64(h.keys[id])
		e.u8(h.levels[id])
		e.u8(h.state[id])
	}
	e.f32s(h.vecs[:h.n*h.dims])
	for id := uint32(0); int(id) < h.n; id++ {
		if h.state[id] == slotFree {
			continue
		}
		for l := 0; l <= int(h.levels[id]); l++ {
			b := h.block(id, l)
			for _, x := range b[:1+b[0]] {
				e.u32(x)
			}
		}
	}
}

func decodeHNSW(d *decoder) *HNSW {
	dims := d.dims()
	m := int(d.u32())
	efC := int(d.u32())
	efS := int(d.u32())
	seed := int64(d.u64())
	if d.err == nil && (m < 2 || m > 1024 || efC < 1 || efC > 1<<20 || efS < 1 || efS > 1<<20 || seed == 0) {
		d.fail("bad parameters M=%d efConstruction=%d efSearch=%d", m, efC, efS)
	}
	n := d.count(10+4*dims, "slot")
	ep, top := d.u32(), int(d.u32())
	if d.err != nil {
		return nil
	}
	h := NewHNSW(dims, Config{M: m, EfConstruction: efC, EfSearch: efS, Seed: seed})
	h.growLocked(n)
	h.n = n
	h.rng = rand.New(rand.NewSource(seed + int64(n)))
	topSeen := -1
	for id := range n {
		key, level, state := d.u64(), d.u8(), d.u8()
		if d.err != nil {
			return nil
		}
		h.keys[id], h.levels[id], h.state[id] = key, level, state
		switch {
		case level > maxLevel:
			d.fail("slot %d: level %d", id, level)
		case state == slotLive:
			if _, dup := h.ids[key]; dup {
				d.fail("duplicate key %d", key)
			}
			h.ids[key] = uint32(id)
			h.live++
			topSeen = max(topSeen, int(level))
		case state == slotTomb:
			h.tomb++
		case state == slotFree:
			if level != 0 {
				d.fail("free slot %d has level %d", id, level)
			}
			h.free = append(h.free, uint32(id))
		default:
			d.fail("slot %d: state %d", id, state)
		}
		if state != slotFree && level > 0 {
			h.upper[id] = make([]uint32, int(level)*(h.m+1))
		}
	}
	d.f32s(h.vecs[:n*dims])
	for id := uint32(0); int(id) < n && d.err == nil; id++ {
		if h.state[id] == slotFree {
			continue
		}
		for l := 0; l <= int(h.levels[id]) && d.err == nil; l++ {
			h.decodeBlock(d, id, l)
		}
	}
	switch {
	case d.err != nil:
	case h.live == 0 && ep != none:
		d.fail("entry point %d in an empty graph", ep)
	case h.live > 0 && (int64(ep) >= int64(n) || h.state[ep] != slotLive):
		d.fail("entry point %d is not a live node", ep)
	case h.live > 0 && (int(h.levels[ep]) != top || top != topSeen):
		d.fail("entry point level %d, top level %d, highest node level %d", h.levels[min(int(ep), n-1)], top, topSeen)
	}
	if d.err != nil {
		return nil
	}
	if h.live == 0 {
		h.resetLocked()
		return h
	}
	h.storeEntry(ep, top)
	return h
}

// decodeBlock reads slot id's list on layer l and checks every link.
func (h *HNSW) decodeBlock(d *decoder, id uint32, l int) {
	b := h.block(id, l)
	c := int(d.u32())
	if d.err == nil && c > len(b)-1 {
		d.fail("slot %d layer %d: %d links", id, l, c)
		return
	}
	b[0] = uint32(c)
	for i := 1; i <= c; i++ {
		x := d.u32()
		if d.err != nil {
			return
		}
		if int64(x) >= int64(h.n) || x == id || h.state[x] == slotFree || int(h.levels[x]) < l {
			d.fail("slot %d layer %d: bad link %d", id, l, x)
			return
		}
		b[i] = x
	}
}
