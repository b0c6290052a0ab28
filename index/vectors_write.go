package index

import (
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// vectorCommitHook, if set (by tests), runs before PutVectors commits.
var vectorCommitHook func()

// PutVectors stores vectors for chunk texts in the space of signature sig
// (one transaction) and adds them to its in-memory index. Vectors for a
// space that is neither active nor being built are dropped: the embedder
// changed while they were computed. When the space being built has a vector
// for every live chunk, it becomes the active space and the old one is
// deleted. Searches go on while the transaction commits.
func (s *Store) PutVectors(sig string, hashes []uint64, vecs [][]float32) (swapped bool, err error) {
	if len(hashes) != len(vecs) {
		return false, fmt.Errorf("index: %d hashes but %d vectors", len(hashes), len(vecs))
	}
	v := &s.vecs
	v.wmu.Lock()
	defer v.wmu.Unlock()
	sp := v.active
	if v.building != nil && v.building.sig == sig {
		sp = v.building
	}
	if sp == nil || sp.sig != sig || len(vecs) == 0 {
		return false, nil
	}
	dims := sp.dims
	if dims == 0 {
		dims = len(vecs[0])
	}
	for i, vec := range vecs {
		if len(vec) != dims {
			return false, fmt.Errorf("index: vector %d has %d dimensions, the space has %d", i, len(vec), dims)
		}
	}
	if vectorCommitHook != nil {
		vectorCommitHook()
	}
	err = s.update(int64(len(hashes))*int64(dims*4+24), func(txn *badger.Txn) error {
		for i, h := range hashes {
			if err := txn.Set(vectorKey(sp.id, h), encodeVector(vecs[i])); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("index: store vectors: %w", err)
	}
	if sp.idx == nil {
		v.mu.Lock()
		sp.dims, sp.idx = dims, newVectorIndex(dims)
		v.mu.Unlock()
	}
	for i, h := range hashes {
		sp.idx.Add(h, vecs[i]) // safe beside searches
	}
	s.mem.addVectors(sp.cov, hashes)
	sp.dirty = true
	if sp == v.building && s.complete(sp) {
		return true, s.swapLocked()
	}
	return false, nil
}

// complete reports whether sp has a vector for every live chunk text.
func (s *Store) complete(sp *space) bool {
	m := s.mem
	m.mu.RLock()
	defer m.mu.RUnlock()
	return len(sp.cov.missing) == 0
}

// swapLocked makes the space being built the active one, atomically for
// queries, and deletes the old space. Callers hold vecs.wmu.
func (s *Store) swapLocked() error {
	v := &s.vecs
	old, next := v.active, v.building
	meta := vectorMeta{Active: next.sig}
	if err := s.writeVectorMeta(meta); err != nil {
		return fmt.Errorf("index: swap vector spaces: %w", err)
	}
	v.mu.Lock()
	next.note = "re-embedded for a new embedder signature"
	v.mu.Unlock()
	s.setSpaces(next, nil, meta)
	if old != nil && old.sig != meta.Active {
		if err := s.dropSpace(old.sig); err != nil {
			s.log.Warn("could not delete the old vector space", "err", err)
		}
	}
	return nil
}

// CollectVectors deletes stored vectors (of every loaded space) whose chunk
// text no longer occurs in any document, and drops them from the in-memory
// indexes. Run it when the vaults are quiet: a note being moved is briefly
// absent between its delete and its re-add. It returns how many it removed.
func (s *Store) CollectVectors() (int, error) {
	v := &s.vecs
	v.wmu.Lock()
	defer v.wmu.Unlock()
	n := 0
	for _, sp := range []*space{v.active, v.building} {
		if sp == nil {
			continue
		}
		var dead []uint64
		m := s.mem
		lv := s.view()
		m.mu.RLock()
		for h := range sp.cov.have {
			if !lv.HasHash(h) {
				dead = append(dead, h)
			}
		}
		m.mu.RUnlock()
		lv.Release()
		for len(dead) > 0 {
			batch := dead[:min(len(dead), 10000)]
			dead = dead[len(batch):]
			err := s.update(int64(len(batch))*24, func(txn *badger.Txn) error {
				for _, h := range batch {
					if err := txn.Delete(vectorKey(sp.id, h)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return n, fmt.Errorf("index: collect vectors: %w", err)
			}
			for _, h := range batch {
				sp.idx.Delete(h)
			}
			s.dropVectors(sp.cov, batch)
			n += len(batch)
			sp.dirty = true
		}
	}
	return n, s.swapIfComplete()
}
