package vector

import (
	"io"
	"math"
	"math/rand"
	"sync"
	"sync/atomic"
)

// Config holds the HNSW build and search parameters. Zero fields take the
// defaults below.
type Config struct {
	// M is the number of neighbours a node keeps on layers above 0 (layer 0
	// keeps 2·M). Default 16.
	M int
	// EfConstruction is the size of the candidate list while inserting.
	// Default 200.
	EfConstruction int
	// EfSearch is the default size of the candidate list while searching
	// (raised to k when k is larger). Default 100.
	EfSearch int
	// Seed seeds the level generator. Default 1, so builds are repeatable
	// when vectors are added from one goroutine.
	Seed int64
}

// DefaultConfig is the configuration used for zero Config fields.
var DefaultConfig = Config{M: 16, EfConstruction: 200, EfSearch: 100, Seed: 1}

func (c Config) withDefaults() Config {
	if c.M <= 0 {
		c.M = DefaultConfig.M
	}
	if c.M < 2 {
		c.M = 2
	}
	if c.EfConstruction <= 0 {
		c.EfConstruction = DefaultConfig.EfConstruction
	}
	if c.EfSearch <= 0 {
		c.EfSearch = DefaultConfig.EfSearch
	}
	if c.Seed == 0 {
		c.Seed = DefaultConfig.Seed
	}
	return c
}

const (
	none     = ^uint32(0) // no node
	maxLevel = 31         // levels are capped (P(level ≥ 31) is negligible for M ≥ 2)
	nStripes = 1 << 12    // link-list locks, shared by node id modulo nStripes

	// Slot states. A free slot is unreachable and reusable; a tombstone is a
	// deleted node that may still be linked to (it routes searches but is
	// never returned) until the next purge.
	slotFree uint8 = 0
	slotLive uint8 = 1
	slotTomb uint8 = 2
)

// HNSW is a Hierarchical Navigable Small World graph over unit vectors,
// scored by dot product (cosine similarity).
//
// Storage is by internal slot id: one contiguous []float32 slab holds every
// vector, one []uint32 slab holds every layer-0 neighbour list as a block of
// [count, ids...] of fixed size 2·M+1, and only the few nodes on upper layers
// have a per-node slice for those layers.
//
// Locking: mu is held shared by Search, Add and Save, exclusively by Delete
// and growth of the slabs. writers is held shared by every change (Add,
// Delete, Reserve) and exclusively by Save, so a snapshot being written
// holds off changes but never a search. Under the shared lock every
// neighbour list is read
// and written under its stripe lock, so inserts run in parallel with each
// other and with searches (as in hnswlib). Vectors, keys and levels of a slot
// are written before the slot is linked into the graph, and never change
// while it is reachable.
type HNSW struct {
	mu      sync.RWMutex
	writers sync.RWMutex
	alloc   sync.Mutex // guards n, free, ids, live, tomb, rng
	epMu    sync.Mutex // held by an insert that raises the top level
	stripes [nStripes]sync.Mutex

	dims, m, m0, efC int
	efSearch         atomic.Int64
	levelMult        float64
	seed             int64

	// Per-slot data; len(keys) is the capacity. Grown only under mu.Lock.
	vecs   []float32
	keys   []Key
	levels []uint8
	state  []uint8
	links0 []uint32   // (m0+1) per slot: count, then ids
	upper  [][]uint32 // level·(m+1) per slot with level > 0, else nil

	n    int      // slots handed out so far (high-water mark)
	free []uint32 // purged slots, reusable
	ids  map[Key]uint32
	live int
	tomb int
	rng  *rand.Rand

	ep atomic.Uint64 // entry point id (low 32 bits) and top level (high 32)

	pool sync.Pool // *scratch
}

var _ Index = (*HNSW)(nil)

// NewHNSW returns an empty HNSW index for vectors of the given dimension.
func NewHNSW(dims int, cfg Config) *HNSW {
	if dims <= 0 {
		panic("vector: dims must be positive")
	}
	cfg = cfg.withDefaults()
	h := &HNSW{
		dims:      dims,
		m:         cfg.M,
		m0:        2 * cfg.M,
		efC:       cfg.EfConstruction,
		levelMult: 1 / math.Log(float64(cfg.M)),
		seed:      cfg.Seed,
		ids:       make(map[Key]uint32),
		rng:       rand.New(rand.NewSource(cfg.Seed)),
	}
	h.efSearch.Store(int64(cfg.EfSearch))
	h.storeEntry(none, 0)
	return h
}

// Config returns the parameters the index was built with and its current
// EfSearch.
func (h *HNSW) Config() Config {
	return Config{M: h.m, EfConstruction: h.efC, EfSearch: int(h.efSearch.Load()), Seed: h.seed}
}

// SetEfSearch sets the default search candidate-list size (minimum 1).
func (h *HNSW) SetEfSearch(ef int) {
	if ef < 1 {
		ef = 1
	}
	h.efSearch.Store(int64(ef))
}

// Dims returns the vector dimension.
func (h *HNSW) Dims() int { return h.dims }

// Len returns the number of live vectors.
func (h *HNSW) Len() int {
	h.alloc.Lock()
	defer h.alloc.Unlock()
	return h.live
}

// Tombstones returns how many deleted nodes still occupy a slot (they are
// reclaimed by the next purge).
func (h *HNSW) Tombstones() int {
	h.alloc.Lock()
	defer h.alloc.Unlock()
	return h.tomb
}

// MemoryUsage estimates the bytes held by the index: the vector and link
// slabs at their capacity, the upper-layer lists and the key map.
func (h *HNSW) MemoryUsage() int64 {
	h.mu.RLock()
	defer h.mu.RUnlock()
	b := int64(cap(h.vecs))*4 + int64(cap(h.keys))*8 + int64(cap(h.levels)+cap(h.state)) +
		int64(cap(h.links0))*4 + int64(cap(h.upper))*24
	for _, u := range h.upper {
		b += int64(cap(u)) * 4
	}
	h.alloc.Lock()
	b += int64(len(h.ids))*24 + int64(cap(h.free))*4 // map entry ≈ key + value + overhead
	h.alloc.Unlock()
	return b
}

// Reserve grows the slabs to hold at least n nodes, so that a bulk load
// does not pause to reallocate.
func (h *HNSW) Reserve(n int) {
	h.writers.RLock()
	defer h.writers.RUnlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	h.growLocked(n)
}

// Save writes a snapshot of the index (see snapshot.go).
func (h *HNSW) Save(w io.Writer) error {
	h.writers.Lock()
	defer h.writers.Unlock()
	h.mu.RLock()
	defer h.mu.RUnlock()
	return writeSnapshot(w, kindHNSW, h.encode)
}

func (h *HNSW) loadEntry() (uint32, int) {
	v := h.ep.Load()
	return uint32(v), int(v >> 32)
}

func (h *HNSW) storeEntry(id uint32, level int) {
	h.ep.Store(uint64(level)<<32 | uint64(id))
}

// vec returns slot id's vector (a view into the slab).
func (h *HNSW) vec(id uint32) []float32 {
	i := int(id) * h.dims
	return h.vecs[i : i+h.dims : i+h.dims]
}

// maxLinks is the neighbour-list capacity on layer l.
func (h *HNSW) maxLinks(l int) int {
	if l == 0 {
		return h.m0
	}
	return h.m
}

// block returns the [count, ids...] block of slot id on layer l. The caller
// holds the slot's stripe lock or mu exclusively.
func (h *HNSW) block(id uint32, l int) []uint32 {
	if l == 0 {
		i := int(id) * (h.m0 + 1)
		return h.links0[i : i+h.m0+1]
	}
	i := (l - 1) * (h.m + 1)
	return h.upper[id][i : i+h.m+1]
}

func (h *HNSW) stripe(id uint32) *sync.Mutex { return &h.stripes[id&(nStripes-1)] }

// readLinks copies slot id's neighbours on layer l into buf.
func (h *HNSW) readLinks(id uint32, l int, buf []uint32) []uint32 {
	mu := h.stripe(id)
	mu.Lock()
	b := h.block(id, l)
	buf = append(buf[:0], b[1:1+b[0]]...)
	mu.Unlock()
	return buf
}

// writeLinks replaces slot id's neighbours on layer l.
func (h *HNSW) writeLinks(id uint32, l int, nbrs []cand) {
	mu := h.stripe(id)
	mu.Lock()
	h.setBlock(h.block(id, l), nbrs)
	mu.Unlock()
}

func (h *HNSW) setBlock(b []uint32, nbrs []cand) {
	b[0] = uint32(len(nbrs))
	for i, c := range nbrs {
		b[1+i] = c.id
	}
}

// growLocked makes room for at least want slots; mu is held exclusively.
func (h *HNSW) growLocked(want int) {
	old := len(h.keys)
	if want <= old {
		return
	}
	c := max(want, old+old/2, 256) // 1.5×: each growth copies the slabs under the exclusive lock
	h.vecs = append(h.vecs, make([]float32, (c-old)*h.dims)...)
	h.keys = append(h.keys, make([]Key, c-old)...)
	h.levels = append(h.levels, make([]uint8, c-old)...)
	h.state = append(h.state, make([]uint8, c-old)...)
	h.links0 = append(h.links0, make([]uint32, (c-old)*(h.m0+1))...)
	h.upper = append(h.upper, make([][]uint32, c-old)...)
}

// resetLocked empties the graph, keeping the slabs' capacity.
func (h *HNSW) resetLocked() {
	clear(h.levels)
	clear(h.state)
	clear(h.links0)
	clear(h.upper)
	h.n, h.free, h.live, h.tomb = 0, nil, 0, 0
	clear(h.ids)
	h.storeEntry(none, 0)
}

// scratch is the per-goroutine working memory of a search or insert.
type scratch struct {
	visit []uint16 // visit[id] == gen when id was seen in this pass
	gen   uint16
	cands minHeap
	res   maxHeap
	buf   []uint32
	sel   []cand
	tmp   []cand
	sink  float32 // see touch
}

func (h *HNSW) getScratch() *scratch {
	s, _ := h.pool.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	if len(s.visit) != len(h.keys) {
		s.visit = make([]uint16, len(h.keys))
		s.gen = 0
	}
	return s
}

func (h *HNSW) putScratch(s *scratch) { h.pool.Put(s) }

// newPass starts a fresh visited set.
func (s *scratch) newPass() {
	s.gen++
	if s.gen == 0 {
		clear(s.visit)
		s.gen = 1
	}
}
