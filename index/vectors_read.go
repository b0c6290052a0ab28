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
	return s.vectorSearch(sig, q, k, filter, false)
}

// VectorSearchExact is VectorSearch scoring every vector instead of
// walking the graph: slower, but it never misses the nearest (a
// meaningless probe, far from everything, is where a graph search misses
// most).
func (s *Store) VectorSearchExact(sig string, q []float32, k int, filter Filter) ([]Hit, error) {
	return s.vectorSearch(sig, q, k, filter, true)
}

// exactSearcher is a vector index that can also search without its graph.
type exactSearcher interface {
	SearchExact(q []float32, k int, filter vector.Filter) []vector.Neighbor
}

func (s *Store) vectorSearch(sig string, q []float32, k int, filter Filter, exact bool) ([]Hit, error) {
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
	lv := s.view()
	defer lv.Release()
	// refs lists the live chunks holding a text, in chunk order.
	refs := func(h uint64) []ChunkRef {
		var out []ChunkRef
		lv.ChunksByHash(h, func(id uint64, ord uint32) { out = append(out, ChunkRef{DocID(id), ord}) })
		slices.SortFunc(out, func(a, b ChunkRef) int {
			switch {
			case a.less(b):
				return -1
			case b.less(a):
				return 1
			}
			return 0
		})
		return out
	}
	allowed := make(map[DocID]bool)
	inScope := func(r ChunkRef) bool {
		if filter == nil {
			return true
		}
		ok, seen := allowed[r.Doc]
		if !seen {
			if at, found := lv.Find(uint64(r.Doc)); found {
				in := lv.Info(at, false)
				ok = filter(in.Vault, in.Path)
			}
			allowed[r.Doc] = ok
		}
		return ok
	}
	keep := func(h vector.Key) bool {
		for _, r := range refs(h) {
			if inScope(r) {
				return true
			}
		}
		return false
	}
	var ns []vector.Neighbor
	if ex, ok := sp.idx.(exactSearcher); ok && exact {
		ns = ex.SearchExact(q, k, keep)
	} else {
		ns = sp.idx.Search(q, k, keep)
	}
	first := func(h uint64) ChunkRef {
		if rs := refs(h); len(rs) > 0 {
			return rs[0]
		}
		return ChunkRef{}
	}
	// Equal scores (and the chunks sharing one text) are ordered by chunk,
	// as BM25 orders its ties, so results do not depend on memory layout.
	sort.SliceStable(ns, func(i, j int) bool {
		if ns[i].Score != ns[j].Score {
			return ns[i].Score > ns[j].Score
		}
		return first(ns[i].Key).less(first(ns[j].Key))
	})
	out := make([]Hit, 0, len(ns))
	for _, n := range ns {
		for _, r := range refs(n.Key) {
			if !inScope(r) {
				continue
			}
			at, ok := lv.Find(uint64(r.Doc))
			if !ok {
				continue
			}
			if h, ok := hitAt(lv, at, r.Ord, float64(n.Score)); ok {
				out = append(out, h)
			}
			if len(out) == k {
				return out, nil
			}
		}
	}
	return out, nil
}

func (c ChunkRef) less(o ChunkRef) bool { return c.Doc < o.Doc || c.Doc == o.Doc && c.Ord < o.Ord }

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
	lv := s.view()
	var hashes []uint64
	if r, ok := lv.Find(uint64(doc.ID)); ok {
		for ord := range lv.ChunkCount(r) {
			if c, ok := lv.Chunk(r, uint32(ord)); ok {
				hashes = append(hashes, c.Hash)
			}
		}
	}
	lv.Release()
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

// VectorStats reports the vector side. It costs O(1): the backlog is kept
// as documents and vectors are written.
func (s *Store) VectorStats() VectorStats {
	v := &s.vecs
	v.mu.RLock()
	active, building := v.active, v.building
	var st VectorStats
	if sp := active; sp != nil {
		st.Active, st.Dims, st.Note = sp.sig, sp.dims, sp.note
		st.Index = "exact"
		if g, ok := sp.idx.(interface{ IsGraph() bool }); ok && g.IsGraph() {
			st.Index = "hnsw"
		}
	}
	if building != nil {
		st.Building = building.sig
	}
	v.mu.RUnlock()
	// The backlogs' sizes as published: status waits for no writer.
	if active != nil {
		st.Vectors = int(active.cov.nHave.Load())
		st.Pending = int(active.cov.nMiss.Load())
	}
	if building != nil {
		st.Built = int(building.cov.nHave.Load())
		st.Pending = int(building.cov.nMiss.Load())
	}
	return st
}
