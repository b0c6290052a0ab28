package vector

import (
	"io"
	"sync"
)

// Exact is a flat index: every search scores every stored vector. Vectors
// live in one contiguous slab; a delete moves the last vector into the hole.
//
// mu is held shared by searches and Save, exclusively by Add and Delete;
// writers is held shared by Add and Delete and exclusively by Save, so a
// snapshot being written holds off changes but never a search.
type Exact struct {
	mu      sync.RWMutex
	writers sync.RWMutex
	dims    int
	vecs    []float32
	keys    []Key
	ids     map[Key]int
}

var _ Index = (*Exact)(nil)

// NewExact returns an empty exact index for vectors of the given dimension.
func NewExact(dims int) *Exact {
	if dims <= 0 {
		panic("vector: dims must be positive")
	}
	return &Exact{dims: dims, ids: make(map[Key]int)}
}

// Dims returns the vector dimension.
func (e *Exact) Dims() int { return e.dims }

// Len returns the number of stored vectors.
func (e *Exact) Len() int {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return len(e.keys)
}

// Add stores a normalised copy of vec under key, replacing any previous one.
func (e *Exact) Add(key Key, vec []float32) {
	v := normalized(vec, e.dims)
	e.writers.RLock()
	defer e.writers.RUnlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	e.addLocked(key, v)
}

func (e *Exact) addLocked(key Key, v []float32) {
	if i, ok := e.ids[key]; ok {
		copy(e.vecs[i*e.dims:(i+1)*e.dims], v)
		return
	}
	e.ids[key] = len(e.keys)
	e.keys = append(e.keys, key)
	e.vecs = append(e.vecs, v...)
}

// Delete removes key and reports whether it was stored.
func (e *Exact) Delete(key Key) bool {
	e.writers.RLock()
	defer e.writers.RUnlock()
	e.mu.Lock()
	defer e.mu.Unlock()
	i, ok := e.ids[key]
	if !ok {
		return false
	}
	last := len(e.keys) - 1
	if i != last {
		e.keys[i] = e.keys[last]
		e.ids[e.keys[i]] = i
		copy(e.vecs[i*e.dims:(i+1)*e.dims], e.vecs[last*e.dims:])
	}
	e.keys = e.keys[:last]
	e.vecs = e.vecs[:last*e.dims]
	delete(e.ids, key)
	return true
}

// Search scores every stored vector the filter admits and returns the k
// best, best first.
func (e *Exact) Search(q []float32, k int, filter Filter) []Neighbor {
	if k <= 0 {
		return nil
	}
	qn := normalized(q, e.dims)
	e.mu.RLock()
	defer e.mu.RUnlock()
	t := topK{k: k}
	d := e.dims
	for i, key := range e.keys {
		if filter != nil && !filter(key) {
			continue
		}
		t.offer(cand{uint32(i), -dot(qn, e.vecs[i*d:(i+1)*d])})
	}
	return e.neighbors(t.h.sortedAscending())
}

// SearchKeys scores exactly the given keys (those stored) and returns the k
// best, best first.
func (e *Exact) SearchKeys(q []float32, k int, keys []Key) []Neighbor {
	if k <= 0 {
		return nil
	}
	qn := normalized(q, e.dims)
	e.mu.RLock()
	defer e.mu.RUnlock()
	t := topK{k: k}
	d := e.dims
	for _, key := range dedupKeys(keys) {
		if i, ok := e.ids[key]; ok {
			t.offer(cand{uint32(i), -dot(qn, e.vecs[i*d:(i+1)*d])})
		}
	}
	return e.neighbors(t.h.sortedAscending())
}

func (e *Exact) neighbors(cs []cand) []Neighbor {
	out := make([]Neighbor, len(cs))
	for i, c := range cs {
		out[i] = Neighbor{Key: e.keys[c.id], Score: -c.d}
	}
	return out
}

// Save writes a snapshot of the index.
func (e *Exact) Save(w io.Writer) error {
	e.writers.Lock()
	defer e.writers.Unlock()
	e.mu.RLock()
	defer e.mu.RUnlock()
	return writeSnapshot(w, kindExact, e.encode)
}
