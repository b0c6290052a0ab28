package index

import (
	"container/heap"
	"math"
	"sync"

	"github.com/ragd/ragd/index/graph"
)

// BM25 holds the BM25 parameters: k1 and b, and the weights of the title
// and heading fields relative to body text (BM25F-style: a chunk's term
// frequency and length are the weighted sums over its fields).
type BM25 struct {
	K1, B         float64
	TitleWeight   float64
	HeadingWeight float64
}

// DefaultBM25 are the parameters ragd ships with, chosen on SciFact and
// Cranfield (see docs/architecture.md for the measurements).
var DefaultBM25 = BM25{K1: 1.2, B: 0.75, TitleWeight: 2, HeadingWeight: 1.5}

func (p BM25) tf(e posting) float32 {
	return float32(p.TitleWeight*float64(e.title) + p.HeadingWeight*float64(e.head) + float64(e.body))
}

func (p BM25) length(l fieldLens) float32 {
	return float32(p.TitleWeight*float64(l.title) + p.HeadingWeight*float64(l.head) + float64(l.body))
}

// plist is an in-memory posting list: chunk slots and weighted tfs, in
// parallel slices (8 bytes a posting), unordered.
type plist struct {
	slots []uint32
	tfs   []float32
}

type slot struct {
	doc                        DocID
	ord                        uint32
	len                        float32
	parent, lineStart, lineEnd uint32
	hash                       uint64 // content hash: the key of the chunk's vector
}

type memDoc struct {
	vault, path, title string
	slots              []uint32   // by chunk ordinal
	headings           [][]string // by parent ordinal
	tags               []string   // frontmatter and inline tags, for #tag filters
	mtime              int64      // modification time (Unix seconds), for date filters
}

// memIndex is the in-memory copy of the postings that queries read.
type memIndex struct {
	mu     sync.RWMutex
	params BM25
	terms  map[string]*plist
	slots  []slot
	free   []uint32
	docs   map[DocID]*memDoc
	totLen float64 // sum of weighted chunk lengths
	live   int
	graph  *graph.Graph
	failed map[DocID]string // failed documents → vault
	gen    uint64           // bumped by every applied change
	// byHash maps a chunk content hash to the live slots holding that
	// text: the vector channel searches by hash and answers with these.
	byHash map[uint64][]uint32

	accPool sync.Pool
}

func newMemIndex(p BM25) *memIndex {
	return &memIndex{params: p, terms: make(map[string]*plist), docs: make(map[DocID]*memDoc), graph: graph.New(), failed: make(map[DocID]string),
		byHash: make(map[uint64][]uint32)}
}

// addDoc registers a document's chunks; postings are added with
// addPostings. Callers hold mu.
func (m *memIndex) addDoc(id DocID, doc *Document, f *forward) *memDoc {
	d := &memDoc{vault: doc.Vault, path: doc.Path, title: doc.Title, slots: make([]uint32, len(f.chunks)),
		headings: f.headings, tags: doc.Tags, mtime: doc.ModTime.Unix()}
	for ord, c := range f.chunks {
		var s uint32
		if n := len(m.free); n > 0 {
			s, m.free = m.free[n-1], m.free[:n-1]
		} else {
			s = uint32(len(m.slots))
			m.slots = append(m.slots, slot{})
		}
		ln := m.params.length(c.fieldLens)
		m.slots[s] = slot{doc: id, ord: uint32(ord), len: ln, parent: c.parent,
			lineStart: c.lineStart, lineEnd: c.lineEnd, hash: c.hash}
		m.byHash[c.hash] = append(m.byHash[c.hash], s)
		m.totLen += float64(ln)
		m.live++
		d.slots[ord] = s
	}
	m.docs[id] = d
	return d
}

func (m *memIndex) addPostings(d *memDoc, term string, ps []posting) {
	pl := m.terms[term]
	if pl == nil {
		pl = &plist{}
		m.terms[term] = pl
	}
	for _, e := range ps {
		if int(e.ord) >= len(d.slots) {
			continue // forward and postings disagree; the consistency check reports it
		}
		pl.slots = append(pl.slots, d.slots[e.ord])
		pl.tfs = append(pl.tfs, m.params.tf(e))
	}
}

// removeDoc drops a document's postings for the given terms and frees its
// slots. Callers hold mu.
func (m *memIndex) removeDoc(id DocID, terms []string) {
	d := m.docs[id]
	if d == nil {
		return
	}
	for _, t := range terms {
		pl := m.terms[t]
		if pl == nil {
			continue
		}
		j := 0
		for i, s := range pl.slots {
			if m.slots[s].doc == id {
				continue
			}
			pl.slots[j], pl.tfs[j] = s, pl.tfs[i]
			j++
		}
		pl.slots, pl.tfs = pl.slots[:j], pl.tfs[:j]
		if j == 0 {
			delete(m.terms, t)
		}
	}
	for _, s := range d.slots {
		m.unhash(s)
		m.totLen -= float64(m.slots[s].len)
		m.live--
		m.slots[s] = slot{}
		m.free = append(m.free, s)
	}
	delete(m.docs, id)
}

// Hit is one BM25 result with the citation of its chunk.
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
type Filter func(vault, path string) bool

type accumulator struct {
	score   []float32
	touched []uint32
}

// search scores every chunk containing a query term and returns the best k
// in scope, best first. Repeated query terms count once per occurrence.
func (m *memIndex) search(terms []string, k int, filter Filter) []Hit {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.live == 0 || k <= 0 {
		return nil
	}
	acc, _ := m.accPool.Get().(*accumulator)
	if acc == nil {
		acc = &accumulator{}
	}
	if len(acc.score) < len(m.slots) {
		acc.score = make([]float32, len(m.slots)+len(m.slots)/4)
	}
	defer func() {
		for _, s := range acc.touched {
			acc.score[s] = 0
		}
		acc.touched = acc.touched[:0]
		m.accPool.Put(acc)
	}()

	n := float64(m.live)
	avg := float32(m.totLen / n)
	k1, b := float32(m.params.K1), float32(m.params.B)
	qtf := make(map[string]int, len(terms))
	for _, t := range terms {
		qtf[t]++
	}
	for t, q := range qtf {
		pl := m.terms[t]
		if pl == nil {
			continue
		}
		df := float64(len(pl.slots))
		idf := float32(float64(q) * math.Log(1+(n-df+0.5)/(df+0.5)))
		for i, s := range pl.slots {
			tf := pl.tfs[i]
			norm := k1 * (1 - b + b*m.slots[s].len/avg)
			if acc.score[s] == 0 {
				acc.touched = append(acc.touched, s)
			}
			acc.score[s] += idf * tf * (k1 + 1) / (tf + norm)
		}
	}

	h := make(hitHeap, 0, k+1)
	var allowed map[DocID]bool // filter verdict per document, when filtering
	if filter != nil {
		allowed = make(map[DocID]bool)
	}
	for _, s := range acc.touched {
		sc := acc.score[s]
		if len(h) == k && sc < h[0].score {
			continue
		}
		sl := m.slots[s]
		e := scored{s, sc, ChunkRef{sl.doc, sl.ord}}
		if len(h) == k && !h.lessThan(0, e) {
			continue
		}
		if filter != nil {
			ok, seen := allowed[sl.doc]
			if !seen {
				d := m.docs[sl.doc]
				ok = filter(d.vault, d.path)
				allowed[sl.doc] = ok
			}
			if !ok {
				continue
			}
		}
		heap.Push(&h, e)
		if len(h) > k {
			heap.Pop(&h)
		}
	}
	out := make([]Hit, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		e := heap.Pop(&h).(scored)
		sl := m.slots[e.slot]
		d := m.docs[sl.doc]
		out[i] = Hit{Ref: ChunkRef{sl.doc, sl.ord}, Vault: d.vault, Path: d.path, Title: d.title,
			LineStart: int(sl.lineStart), LineEnd: int(sl.lineEnd), Score: float64(e.score), Parent: sl.parent}
		if int(sl.parent) < len(d.headings) {
			out[i].Heading = d.headings[sl.parent]
		}
	}
	return out
}

type scored struct {
	slot  uint32
	score float32
	ref   ChunkRef
}

// hitHeap is a min-heap on score; ties are broken by chunk (document id,
// then ordinal) so that results do not depend on memory layout.
type hitHeap []scored

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return h.lessThan(i, h[j]) }

// lessThan reports whether h[i] ranks below e (e would displace it).
func (h hitHeap) lessThan(i int, e scored) bool {
	if h[i].score != e.score {
		return h[i].score < e.score
	}
	if h[i].ref.Doc != e.ref.Doc {
		return h[i].ref.Doc > e.ref.Doc
	}
	return h[i].ref.Ord > e.ref.Ord
}

func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)   { *h = append(*h, x.(scored)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
