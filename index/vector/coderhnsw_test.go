package vector

import (
	"fmt"
	"io"
	"slices"
	"testing"

	coder "github.com/coder/hnsw"
)

// coderIndex wraps github.com/coder/hnsw v0.6.1 (the library the design first
// named) to our Index interface, so the recall harness can measure it. It is
// the only place the library is used: the package does not depend on it.
//
// v0.6.1 does NOT meet the recall bar: on the harness's 10k × 64-d clustered
// data it measured recall@10 0.13 and found a stored vector in its own top
// 10 only 44 % of the time, where ours has 0.995 and 100 % (2k × 64-d under
// -race: 0.28 vs 1.0). Raising EfSearch does not help. It also panics on
// re-adding a key and on searching after deleting half the nodes (and,
// upstream issue #10, on some Add → Delete → Add sequences); see the
// package documentation. BenchmarkCoderHNSWRecall measures both recalls
// and fails unless ours is higher; TestCoderHNSWPanics runs the panicking
// operations on both.
type coderIndex struct {
	g    *coder.Graph[Key]
	dims int
}

func newCoderIndex(dims int) Index {
	g := coder.NewGraph[Key]()
	g.M = 16
	g.Ml = 0.25
	g.EfSearch = 100
	return &coderIndex{g: g, dims: dims}
}

func (c *coderIndex) Add(key Key, vec []float32) {
	c.g.Add(coder.MakeNode(key, normalized(vec, c.dims)))
}

func (c *coderIndex) Delete(key Key) bool { return c.g.Delete(key) }

// Search calls the library (which returns unsorted nodes without
// distances), then scores and sorts the hits itself.
func (c *coderIndex) Search(q []float32, k int, filter Filter) []Neighbor {
	qn := normalized(q, c.dims)
	var out []Neighbor
	for _, n := range c.g.Search(qn, k) {
		if filter == nil || filter(n.Key) {
			out = append(out, Neighbor{Key: n.Key, Score: dotUnrolled(qn, n.Value)})
		}
	}
	slices.SortFunc(out, func(a, b Neighbor) int {
		if a.Score > b.Score {
			return -1
		}
		if a.Score < b.Score {
			return 1
		}
		return 0
	})
	return out
}

func (c *coderIndex) Len() int               { return c.g.Len() }
func (c *coderIndex) Dims() int              { return c.dims }
func (c *coderIndex) Save(w io.Writer) error { return c.g.Export(w) }

// tryOp runs op and returns the panic it raised, if any.
func tryOp(op func()) (panicked any) {
	defer func() { panicked = recover() }()
	op()
	return nil
}

// BenchmarkCoderHNSWRecall measures coder/hnsw v0.6.1 with the same
// recall harness as ours, on the first recall case, and reports both
// recalls (recall@10 and self-hit, as metrics); it fails if ours does not
// beat it. It measures a library the package rejected, so it is a
// benchmark, not part of the test suite:
//
//	go test -run '^$' -bench CoderHNSWRecall -benchtime 1x ./index/vector/
func BenchmarkCoderHNSWRecall(b *testing.B) {
	rc := recallCases()[0]
	for b.Loop() {
		theirs := measureRecall(b, newCoderIndex, rc, 10)
		if theirs.panicked != nil {
			b.Fatalf("coder/hnsw panicked during adds and searches: %v", theirs.panicked)
		}
		ours := measureRecall(b, ourHNSW, rc, 10)
		b.Logf("%d×%d-d recall@10: coder/hnsw v0.6.1 %.4f (self-hit %.4f, %v/query) vs ours %.4f (self-hit %.4f, %v/query)",
			rc.n, rc.dims, theirs.recall, theirs.selfHit, theirs.perQuery, ours.recall, ours.selfHit, ours.perQuery)
		b.ReportMetric(theirs.recall, "coder-recall@10")
		b.ReportMetric(ours.recall, "ours-recall@10")
		b.ReportMetric(theirs.selfHit, "coder-self-hit")
		b.ReportMetric(ours.selfHit, "ours-self-hit")
		if ours.recall <= theirs.recall {
			b.Errorf("our recall %.4f does not beat coder/hnsw's %.4f", ours.recall, theirs.recall)
		}
		if theirs.recall >= 0.95 {
			b.Logf("coder/hnsw now meets the recall bar: revisit the package documentation")
		}
	}
}

// TestCoderHNSWPanics runs the operations that panic in coder/hnsw v0.6.1,
// each on a fresh small graph of both libraries: ours must survive every
// one (theirs is logged).
func TestCoderHNSWPanics(t *testing.T) {
	t.Parallel()
	vecs := clustered(newRand(7), 500, 16, 5, 1.5)
	ops := map[string]func(c Index){
		"re-add a key": func(c Index) { c.Add(1, vecs[0]) },
		"add, delete, add": func(c Index) {
			c.Delete(2)
			c.Add(2, vecs[2])
		},
		"delete half then search": func(c Index) {
			for i := 0; i < len(vecs); i += 2 {
				c.Delete(Key(i))
			}
			for _, v := range vecs[:50] {
				c.Search(v, 10, nil)
			}
		},
	}
	for _, name := range []string{"re-add a key", "add, delete, add", "delete half then search"} {
		c := newCoderIndex(16)
		if p := tryOp(func() {
			for i, v := range vecs {
				c.Add(Key(i), v)
			}
		}); p != nil {
			t.Fatalf("coder/hnsw: building the small graph panicked: %v", p)
		}
		p := tryOp(func() { ops[name](c) })
		t.Logf("coder/hnsw %s: %s", name, describePanic(p))
		ours := NewHNSW(16, Config{})
		for i, v := range vecs {
			ours.Add(Key(i), v)
		}
		if p := tryOp(func() { ops[name](ours) }); p != nil {
			t.Errorf("ours %s: panic %v", name, p)
		}
	}
}

func describePanic(p any) string {
	if p == nil {
		return "ok"
	}
	return fmt.Sprintf("panics (%v)", p)
}
