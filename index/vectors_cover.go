package index

import "sync/atomic"

// A cover is, for one loaded vector space, which chunk texts have a vector
// in it (have) and which live texts — texts of a searchable chunk — lack
// one (missing): the embedding backlog. It is kept as documents and vectors
// are written, so that the backlog, its size and whether a space being
// built is complete are known without a walk of the index. A cover is
// guarded by memIndex.mu; its sizes are published as they change (sized),
// so that status reads them without that lock.
type cover struct {
	have    map[uint64]struct{}
	missing map[uint64]struct{}
	nHave   atomic.Int64
	nMiss   atomic.Int64
}

// sized publishes the cover's sizes; the caller holds memIndex.mu.
func (c *cover) sized() {
	c.nHave.Store(int64(len(c.have)))
	c.nMiss.Store(int64(len(c.missing)))
}

// coverSet holds the cover of every loaded space, by space id.
type coverSet map[uint64]*cover

// born is called for the text of every chunk written, died for the text of
// every chunk removed that no live chunk holds any more. Callers hold
// memIndex.mu.
func (cs coverSet) born(h uint64) {
	for _, c := range cs {
		if _, ok := c.have[h]; !ok {
			c.missing[h] = struct{}{}
		}
	}
}

func (cs coverSet) died(h uint64) {
	for _, c := range cs {
		delete(c.missing, h)
	}
}

// sized publishes the sizes of every cover.
func (cs coverSet) sized() {
	for _, c := range cs {
		c.sized()
	}
}

// cover starts keeping the cover of space id, whose stored vectors are
// have, and returns it. It walks the live chunks once. A pass in bulk mode
// may hold committed notes that no segment shows yet, and whose texts were
// written while no cover was kept to record them: they are made
// searchable first, so the walk sees them (a later write's texts are
// recorded as they are written, under the lock held here).
func (s *Store) cover(id uint64, have map[uint64]struct{}) *cover {
	m := s.mem
	m.mu.Lock()
	defer m.mu.Unlock()
	s.lex.RevealAll()
	v := s.view()
	defer v.Release()
	c := &cover{have: have, missing: make(map[uint64]struct{})}
	v.EachChunk(func(_ uint64, _ uint32, h uint64) bool {
		if _, ok := have[h]; !ok {
			c.missing[h] = struct{}{}
		}
		return true
	})
	c.sized()
	m.covers[id] = c
	return c
}

// coverChanges brings the backlogs in line with notes replaced or removed
// (whose chunk texts were gone, read before the change) and notes written
// (whose texts are added), once the segments hold the change.
func (s *Store) coverChanges(gone []uint64, added []uint64) {
	m := s.mem
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.covers) == 0 {
		return
	}
	defer m.covers.sized()
	for _, h := range added {
		m.covers.born(h)
	}
	if len(gone) == 0 {
		return
	}
	v := s.view()
	defer v.Release()
	for _, h := range gone {
		if !v.HasHash(h) {
			m.covers.died(h)
		}
	}
}

// uncover stops keeping the cover of space id.
func (m *memIndex) uncover(id uint64) {
	m.mu.Lock()
	delete(m.covers, id)
	m.mu.Unlock()
}

// addVectors records that the space of c has vectors for hashes.
func (m *memIndex) addVectors(c *cover, hashes []uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, h := range hashes {
		c.have[h] = struct{}{}
		delete(c.missing, h)
	}
	c.sized()
}

// dropVectors records that the space of c no longer has vectors for
// hashes; those still live are missing again.
func (s *Store) dropVectors(c *cover, hashes []uint64) {
	m := s.mem
	m.mu.Lock()
	defer m.mu.Unlock()
	v := s.view()
	defer v.Release()
	for _, h := range hashes {
		delete(c.have, h)
		if v.HasHash(h) {
			c.missing[h] = struct{}{}
		}
	}
	c.sized()
}
