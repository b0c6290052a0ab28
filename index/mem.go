package index

import (
	"sync"
	"sync/atomic"

	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/segment"
)

// BM25 are the lexical ranking parameters (index/segment): BM25F field
// weights and length normalisation, whole-note evidence and proximity.
// They apply at query time: changing them needs no reindex.
type BM25 = segment.Params

// DefaultBM25 are the parameters ragd ships with, chosen by measurement
// (docs/architecture.md, "Measurements").
var DefaultBM25 = segment.DefaultParams

// memIndex is what the store keeps in memory beside the segments: the
// entity graph, the failed documents, the per-vault counts (counts.go) and
// the vector spaces' backlogs (vectors_cover.go).
//
// What status reads is kept apart from the graph's lock, whose holders may
// work for a while (a batch's notes added to a graph of hundreds of
// thousands, a table that doubles, lists copied when trimmed): the counts
// and the failed documents under tmu, held only to read or replace them;
// the graph's counts and the backlogs' sizes published as they change
// (graphStats, cover's sizes). Status then never waits for the graph.
type memIndex struct {
	mu     sync.RWMutex
	graph  *graph.Graph
	covers coverSet
	// graphStats is graph.Counts as of the graph's last change, set under
	// mu (nil until the graph is loaded).
	graphStats atomic.Pointer[graph.Stats]

	tmu    sync.Mutex
	failed map[DocID]failedDoc   // guarded by tmu
	counts map[string]VaultCount // as of the last applied commit; guarded by tmu
	// ready is closed once the graph is loaded (graph_load.go): readers of
	// the graph and writers wait for it.
	ready chan struct{}
	// namesReady is closed once every note's names are loaded, which is
	// all anchor resolution needs (before ready when they are kept apart).
	namesReady chan struct{}
	// namesWhole is set once the graph holds every note's names (not when a
	// load that failed or was cut short closes namesReady): then a names
	// snapshot may be written from it.
	namesWhole atomic.Bool
	// loadNow is closed (once, by wantGraph or Store.LoadGraph) when the
	// graph's relations are wanted: the load reads them only then.
	loadNow  chan struct{}
	loadOnce sync.Once
}

// publishGraph publishes the graph's counts; the caller holds mu (or is
// the graph's load, before anyone reads it).
func (m *memIndex) publishGraph() {
	st := m.graph.Counts()
	m.graphStats.Store(&st)
}

func newMemIndex() *memIndex {
	return &memIndex{graph: graph.New(), failed: make(map[DocID]failedDoc), counts: make(map[string]VaultCount),
		covers: make(coverSet), ready: make(chan struct{}),
		namesReady: make(chan struct{}), loadNow: make(chan struct{})}
}

// Hit is one lexical or vector result with the citation of its chunk.
type Hit struct {
	Ref       ChunkRef
	Vault     string
	Path      string
	Title     string
	Heading   []string
	LineStart int
	LineEnd   int
	Score     float64
	Parent    uint32 // ordinal of the chunk's parent section
}

// Filter reports whether a document is in scope. A nil Filter admits all.
// The strings may point into the index: a Filter must not retain them.
type Filter func(vault, path string) bool

// view returns the current lexical view; the caller releases it.
func (s *Store) view() *segment.View { return s.lex.View() }

// hitAt describes chunk ord of the note at r as a hit with score.
func hitAt(v *segment.View, r segment.Ref, ord uint32, score float64) (Hit, bool) {
	c, ok := v.Chunk(r, ord)
	if !ok {
		return Hit{}, false
	}
	in := v.Info(r, false)
	return Hit{Ref: ChunkRef{DocID(in.ID), ord}, Vault: in.Vault, Path: in.Path, Title: in.Title,
		Heading: v.Heading(r, c.Parent), LineStart: int(c.LineStart), LineEnd: int(c.LineEnd),
		Score: score, Parent: c.Parent}, true
}
