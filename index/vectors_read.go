package index

import (
	"errors"
	"slices"
	"sort"

	"github.com/ragd/ragd/index/vector"
)

// ErrNoVectors is returned by VectorSearch when the signature's space is not
// the one serving (not configured, or still being built).
var ErrNoVectors = errors.New("index: no vectors for this embedder yet")

// ActiveSignature is the signature of the space that answers vector
// searches ("" when none).
func (s *Store) ActiveSignature() string {
	s.vecs.mu.RLock()
	defer s.vecs.mu.RUnlock()
	if s.vecs.active == nil {
		return ""
	}
	return s.vecs.active.sig
}

// VectorSearch returns the k chunks nearest to q (cosine) among documents
// admitted by filter, in the space of signature sig, best first. The filter
// is applied inside the vector index's candidate generation, so k in-scope
// chunks come back whenever k exist. Chunks sharing a text share its score.
func (s *Store) VectorSearch(sig string, q []float32, k int, filter Filter) ([]Hit, error) {
	v := &s.vecs
	v.mu.RLock()
	defer v.mu.RUnlock()
	sp := v.active
	if sp == nil || sp.sig != sig || sp.idx == nil {
		return nil, ErrNoVectors
	}
	if len(q) != sp.dims {
		return nil, errors.New("index: query vector has the wrong number of dimensions")
	}
	m := s.mem
	m.mu.RLock()
	defer m.mu.RUnlock()
	allowed := make(map[DocID]bool)
	inScope := func(slot uint32) bool {
		sl := m.slots[slot]
		if filter == nil {
			return true
		}
		ok, seen := allowed[sl.doc]
		if !seen {
			d := m.docs[sl.doc]
			ok = d != nil && filter(d.vault, d.path)
			allowed[sl.doc] = ok
		}
		return ok
	}
	keep := func(h vector.Key) bool {
		for _, sl := range m.byHash[h] {
			if inScope(sl) {
				return true
			}
		}
		return false
	}
	ns := sp.idx.Search(q, k, keep)
	// Equal scores (and the chunks sharing one text) are ordered by chunk,
	// as BM25 orders its ties, so results do not depend on memory layout.
	sort.SliceStable(ns, func(i, j int) bool {
		if ns[i].Score != ns[j].Score {
			return ns[i].Score > ns[j].Score
		}
		return firstRef(m, ns[i].Key).less(firstRef(m, ns[j].Key))
	})
	out := make([]Hit, 0, len(ns))
	for _, n := range ns {
		slots := slices.Clone(m.byHash[n.Key])
		slices.SortFunc(slots, func(a, b uint32) int {
			ra, rb := ChunkRef{m.slots[a].doc, m.slots[a].ord}, ChunkRef{m.slots[b].doc, m.slots[b].ord}
			switch {
			case ra.less(rb):
				return -1
			case rb.less(ra):
				return 1
			}
			return 0
		})
		for _, slot := range slots {
			if !inScope(slot) {
				continue
			}
			out = append(out, m.hit(slot, float64(n.Score)))
			if len(out) == k {
				return out, nil
			}
		}
	}
	return out, nil
}

// firstRef is the smallest chunk holding a text hash. Callers hold mu.
func firstRef(m *memIndex, h uint64) ChunkRef {
	var best ChunkRef
	for i, s := range m.byHash[h] {
		r := ChunkRef{m.slots[s].doc, m.slots[s].ord}
		if i == 0 || r.less(best) {
			best = r
		}
	}
	return best
}

func (c ChunkRef) less(o ChunkRef) bool { return c.Doc < o.Doc || c.Doc == o.Doc && c.Ord < o.Ord }

// hit describes a live slot as a search hit. Callers hold mu.
func (m *memIndex) hit(slot uint32, score float64) Hit {
	sl := m.slots[slot]
	d := m.docs[sl.doc]
	h := Hit{Ref: ChunkRef{sl.doc, sl.ord}, Vault: d.vault, Path: d.path, Title: d.title,
		LineStart: int(sl.lineStart), LineEnd: int(sl.lineEnd), Score: score, Parent: sl.parent}
	if int(sl.parent) < len(d.headings) {
		h.Heading = d.headings[sl.parent]
	}
	return h
}

// ChunkVectors returns the stored vectors, in the active space, of a
// document's chunks (for "similar notes"); chunks without one are skipped.
func (s *Store) ChunkVectors(vault, path string) ([][]float32, error) {
	v := &s.vecs
	v.mu.RLock()
	sp := v.active
	v.mu.RUnlock()
	if sp == nil {
		return nil, ErrNoVectors
	}
	doc, err := s.Document(vault, path)
	if err != nil || doc == nil {
		return nil, err
	}
	m := s.mem
	m.mu.RLock()
	var hashes []uint64
	if d := m.docs[doc.ID]; d != nil {
		for _, slot := range d.slots {
			hashes = append(hashes, m.slots[slot].hash)
		}
	}
	m.mu.RUnlock()
	return s.readVectors(sp.id, hashes)
}

// VectorStats describes the vector side for status.
type VectorStats struct {
	Active   string // signature
	Building string // signature being built, if any
	Vectors  int    // in the active space
	Built    int    // in the space being built
	Pending  int    // live chunk texts without a vector in the target space
	Dims     int
	Note     string
	// Index is how the active space is searched: "hnsw" (a graph) or
	// "exact" (a scan, below the size at which the graph pays).
	Index string
}

// VectorStats reports the vector side.
func (s *Store) VectorStats() VectorStats {
	_, _, pending := s.PendingVectors(0)
	v := &s.vecs
	v.mu.RLock()
	defer v.mu.RUnlock()
	st := VectorStats{Pending: pending}
	if sp := v.active; sp != nil {
		st.Active, st.Vectors, st.Dims, st.Note = sp.sig, len(sp.have), sp.dims, sp.note
		st.Index = "exact"
		if g, ok := sp.idx.(interface{ IsGraph() bool }); ok && g.IsGraph() {
			st.Index = "hnsw"
		}
	}
	if sp := v.building; sp != nil {
		st.Building, st.Built = sp.sig, len(sp.have)
	}
	return st
}
