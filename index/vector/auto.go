package vector

import (
	"io"
	"math"
	"runtime"
	"sync"
)

// DefaultAutoThreshold is the size at which Auto switches from an exact scan
// to HNSW.
//
// Measured with BenchmarkExactVsHNSW (2-core reference machine, clustered
// unit vectors, M=16, efSearch 100, k=10; µs per query, exact vs HNSW):
//
//	n        384-d        512-d
//	500      22 vs 40     17 vs 59
//	1000     33 vs 51     66 vs 99
//	2000    115 vs 76    244 vs 117
//	4000    263 vs 90    458 vs 136
//	8000    675 vs 141   928 vs 161
//	16000  1573 vs 263  1723 vs 376
//
// The graph wins from about 1,500 vectors at both dimensions. The threshold
// is set just past that crossover: below it the exact scan costs at most
// ~0.1-0.25 ms a query, has perfect recall, no graph memory and cheap
// writes; the one-off build when the threshold is crossed takes ~0.2-0.4 s.
const DefaultAutoThreshold = 2048

// Filtered searches. A graph search whose filter admits a fraction p of
// the vectors must walk about 1/p times as many nodes as an unfiltered one
// (it cannot stop before ef in-scope hits), while an exact scan scores only
// the p·n in-scope vectors (plus one cheap filter call per vector). With
// an unfiltered search costing about visitFactor·ef distance computations,
// the scan is cheaper when p·n < visitFactor·ef/p, that is when
// p < sqrt(visitFactor·ef/n).
//
// Measured with BenchmarkFilteredSearch (20k × 384-d, ef 100, k 10; ms per
// query, graph vs scan): 1/2 in scope 0.35 vs 1.28; 1/5 1.35 vs 0.74; 1/10
// 3.07 vs 0.50; 1/20 3.03 vs 0.20; 1/100 6.2 vs 0.07. The crossover near
// p ≈ 0.27 gives visitFactor ≈ 14 (sqrt(14·100/20000) = 0.26).
const (
	visitFactor  = 14
	scopeSamples = 512 // filter calls spent estimating p
)

// AutoOptions tunes Auto. Zero fields take the defaults.
type AutoOptions struct {
	// Threshold: at this many vectors the index becomes an HNSW graph; it
	// goes back to exact when deletes bring it below Threshold/2.
	// Default DefaultAutoThreshold.
	Threshold int
	// ExactScope: a filtered search scans exactly when the estimated
	// number of in-scope vectors is at most this. Default Threshold.
	ExactScope int
	// MinSelectivity: a filtered search also scans exactly when the
	// estimated fraction of vectors in scope is below this. Zero (the
	// default) uses the cost model above, sqrt(visitFactor·ef/n).
	MinSelectivity float64
	// HNSW configures the graph.
	HNSW Config
}

func (o AutoOptions) withDefaults() AutoOptions {
	if o.Threshold <= 0 {
		o.Threshold = DefaultAutoThreshold
	}
	if o.ExactScope <= 0 {
		o.ExactScope = o.Threshold
	}
	if o.MinSelectivity < 0 || o.MinSelectivity > 1 {
		o.MinSelectivity = 0
	}
	o.HNSW = o.HNSW.withDefaults()
	return o
}

// Auto is exact below a size threshold and HNSW above it, switching as it
// grows or shrinks. For a filtered search on the graph it estimates how many
// vectors the filter admits (by sampling it on spread-out keys) and scans
// exactly when few are in scope, where the graph would have to walk most of
// itself to find k hits.
type Auto struct {
	mu sync.RWMutex // shared for every operation, exclusive to switch
	// writers is held shared by Add and Delete and exclusively by Save, so
	// a snapshot being written holds off changes but never a search.
	writers sync.RWMutex
	dims    int
	opts    AutoOptions
	exact   *Exact // exactly one of exact and graph is non-nil
	graph   *HNSW
}

var _ Index = (*Auto)(nil)

// NewAuto returns an empty Auto index.
func NewAuto(dims int, opts AutoOptions) *Auto {
	return &Auto{dims: dims, opts: opts.withDefaults(), exact: NewExact(dims)}
}

// Dims returns the vector dimension.
func (a *Auto) Dims() int { return a.dims }

// IsGraph reports whether the index is currently an HNSW graph.
func (a *Auto) IsGraph() bool {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.graph != nil
}

func (a *Auto) current() Index {
	if a.graph != nil {
		return a.graph
	}
	return a.exact
}

// Len returns the number of stored vectors.
func (a *Auto) Len() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return a.current().Len()
}

// Add stores vec under key, switching to HNSW when the size reaches the
// threshold.
func (a *Auto) Add(key Key, vec []float32) {
	a.writers.RLock()
	defer a.writers.RUnlock()
	a.mu.RLock()
	grow := a.exact != nil && a.exact.Len() >= a.opts.Threshold-1
	if !grow {
		a.current().Add(key, vec)
		a.mu.RUnlock()
		return
	}
	a.mu.RUnlock()
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.exact != nil && a.exact.Len() >= a.opts.Threshold-1 {
		a.graph = buildHNSW(a.exact, a.opts.HNSW)
		a.exact = nil
	}
	a.current().Add(key, vec)
}

// Delete removes key, going back to exact below half the threshold.
func (a *Auto) Delete(key Key) bool {
	a.writers.RLock()
	defer a.writers.RUnlock()
	a.mu.RLock()
	ok := a.current().Delete(key)
	shrink := a.graph != nil && a.graph.Len() < a.opts.Threshold/2
	a.mu.RUnlock()
	if shrink {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.graph != nil && a.graph.Len() < a.opts.Threshold/2 {
			a.exact = a.graph.toExact()
			a.graph = nil
		}
	}
	return ok
}

// Search returns the k best in-scope vectors, best first: exact below the
// threshold or when the filter admits few vectors, HNSW otherwise.
func (a *Auto) Search(q []float32, k int, filter Filter) []Neighbor {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.exact != nil {
		return a.exact.Search(q, k, filter)
	}
	if filter != nil {
		frac, live := a.graph.estimateScope(filter, scopeSamples)
		if frac*float64(live) <= float64(a.opts.ExactScope) || frac < a.minSelectivity(live, k) {
			return a.graph.SearchExact(q, k, filter)
		}
	}
	return a.graph.Search(q, k, filter)
}

// SearchExact returns the k best in-scope vectors, best first, by scoring
// every one (no graph): for the rare search that must not miss, such as
// calibrating a similarity floor.
func (a *Auto) SearchExact(q []float32, k int, filter Filter) []Neighbor {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.exact != nil {
		return a.exact.Search(q, k, filter)
	}
	return a.graph.SearchExact(q, k, filter)
}

// minSelectivity is the in-scope fraction below which a filtered search on
// a graph of live vectors scans exactly.
func (a *Auto) minSelectivity(live, k int) float64 {
	if a.opts.MinSelectivity > 0 {
		return a.opts.MinSelectivity
	}
	ef := max(k, int(a.graph.efSearch.Load()))
	return math.Sqrt(float64(visitFactor*ef) / float64(max(live, 1)))
}

// SearchKeys returns the k best of the given keys: the candidates hint for a
// caller that knows which keys are in scope. Few keys are scored directly;
// many go through the graph with a set filter.
func (a *Auto) SearchKeys(q []float32, k int, keys []Key) []Neighbor {
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.exact != nil {
		return a.exact.SearchKeys(q, k, keys)
	}
	live := a.graph.Len()
	if len(keys) <= a.opts.ExactScope || float64(len(keys)) < a.minSelectivity(live, k)*float64(live) {
		return a.graph.SearchKeys(q, k, keys)
	}
	set := make(map[Key]struct{}, len(keys))
	for _, key := range keys {
		set[key] = struct{}{}
	}
	return a.graph.Search(q, k, func(key Key) bool { _, ok := set[key]; return ok })
}

// Save writes a snapshot of the index.
func (a *Auto) Save(w io.Writer) error {
	a.writers.Lock()
	defer a.writers.Unlock()
	a.mu.RLock()
	defer a.mu.RUnlock()
	if a.graph != nil {
		a.graph.mu.RLock()
		defer a.graph.mu.RUnlock()
	} else {
		a.exact.mu.RLock()
		defer a.exact.mu.RUnlock()
	}
	return writeSnapshot(w, kindAuto, func(e *encoder) {
		e.u32(uint32(a.opts.Threshold))
		e.u32(uint32(a.opts.ExactScope))
		e.u64(math.Float64bits(a.opts.MinSelectivity))
		if a.graph != nil {
			e.u8(kindHNSW)
			a.graph.encode(e)
		} else {
			e.u8(kindExact)
			a.exact.encode(e)
		}
	})
}

func decodeAuto(d *decoder) *Auto {
	threshold, scope := int(d.u32()), int(d.u32())
	minSel := math.Float64frombits(d.u64())
	if d.err == nil && (threshold < 1 || scope < 1 || !(minSel >= 0 && minSel <= 1)) {
		d.fail("bad auto options")
	}
	inner := d.u8()
	if d.err != nil {
		return nil
	}
	a := &Auto{opts: AutoOptions{Threshold: threshold, ExactScope: scope, MinSelectivity: minSel}}
	switch inner {
	case kindExact:
		a.exact = decodeExact(d)
		if a.exact == nil {
			return nil
		}
		a.dims = a.exact.dims
	case kindHNSW:
		a.graph = decodeHNSW(d)
		if a.graph == nil {
			return nil
		}
		a.dims = a.graph.dims
		a.opts.HNSW = a.graph.Config()
	default:
		d.fail("auto: inner kind %d", inner)
		return nil
	}
	a.opts = a.opts.withDefaults()
	return a
}

// buildHNSW copies an exact index into a new graph, inserting in parallel.
func buildHNSW(e *Exact, cfg Config) *HNSW {
	h := NewHNSW(e.dims, cfg)
	e.mu.RLock()
	defer e.mu.RUnlock()
	h.Reserve(len(e.keys) + 1)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(e.keys); i += workers {
				h.Add(e.keys[i], e.vecs[i*e.dims:(i+1)*e.dims])
			}
		}()
	}
	wg.Wait()
	return h
}

// toExact copies the live vectors of the graph into a new exact index.
func (h *HNSW) toExact() *Exact {
	h.mu.RLock()
	defer h.mu.RUnlock()
	h.alloc.Lock()
	defer h.alloc.Unlock()
	e := NewExact(h.dims)
	for id := 0; id < h.n; id++ {
		if h.state[id] == slotLive {
			e.addLocked(h.keys[id], h.vec(uint32(id)))
		}
	}
	return e
}
