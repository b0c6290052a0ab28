package vector

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// Benchmarks. The figures quoted in comments (dot.go, auto.go) come from
//
//	go test -run '^$' -bench . -benchtime 2000x ./index/vector/

var benchDims = []int{64, 100, 384, 512}

func BenchmarkDot(b *testing.B) {
	for _, d := range benchDims {
		v := clustered(newRand(1), 2, d, 1, 1)
		for _, impl := range []struct {
			name string
			fn   func(a, b []float32) float32
		}{{"vek32", dot}, {"unrolled", dotUnrolled}} {
			b.Run(fmt.Sprintf("%s/d=%d", impl.name, d), func(b *testing.B) {
				var s float32
				for b.Loop() {
					s += impl.fn(v[0], v[1])
				}
				_ = s
			})
		}
	}
}

// benchSet caches built indexes across benchmark runs.
var (
	benchMu    sync.Mutex
	benchCache = map[string]any{}
)

type benchData struct {
	base, queries [][]float32
	hnsw          *HNSW
	exact         *Exact
}

// benchIndex returns n clustered d-dim vectors loaded into both an HNSW
// (built with parallel inserts) and an exact index, plus 200 queries.
func benchIndex(n, d int) *benchData {
	benchMu.Lock()
	defer benchMu.Unlock()
	key := fmt.Sprintf("%d/%d", n, d)
	if v, ok := benchCache[key]; ok {
		return v.(*benchData)
	}
	all := clustered(newRand(int64(n+d)), n+200, d, max(10, n/200), 1.5)
	bd := &benchData{base: all[:n], queries: all[n:], hnsw: NewHNSW(d, Config{}), exact: NewExact(d)}
	bd.hnsw.Reserve(n)
	parallelAdd(bd.hnsw, bd.base)
	for i, v := range bd.base {
		bd.exact.Add(Key(i), v)
	}
	benchCache[key] = bd
	return bd
}

// parallelAdd inserts base[i] under key i from GOMAXPROCS goroutines.
func parallelAdd(idx Index, base [][]float32) {
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(base); i += workers {
				idx.Add(Key(i), base[i])
			}
		}()
	}
	wg.Wait()
}

func BenchmarkSearch(b *testing.B) {
	for _, c := range []struct{ n, d int }{{10000, 100}, {20000, 384}} {
		bd := benchIndex(c.n, c.d)
		for _, ef := range []int{50, 100, 200} {
			b.Run(fmt.Sprintf("n=%d/d=%d/ef=%d", c.n, c.d, ef), func(b *testing.B) {
				i := 0
				for b.Loop() {
					bd.hnsw.SearchEf(bd.queries[i%len(bd.queries)], 10, ef, nil)
					i++
				}
			})
		}
	}
}

// BenchmarkInsert measures one insert into a graph of 10k vectors (the graph
// grows by b.N during the run), single goroutine.
func BenchmarkInsert(b *testing.B) {
	for _, d := range []int{100, 384} {
		b.Run(fmt.Sprintf("d=%d", d), func(b *testing.B) {
			bd := benchIndex(10000, d)
			h := NewHNSW(d, Config{})
			for i, v := range bd.base {
				h.Add(Key(i), v)
			}
			extra := clustered(newRand(99), 2000, d, 50, 1.5)
			i := 0
			for b.Loop() {
				h.Add(Key(1_000_000+i), extra[i%len(extra)])
				i++
			}
		})
	}
}

// BenchmarkExactVsHNSW finds the size where the graph beats a flat scan
// (DefaultAutoThreshold).
func BenchmarkExactVsHNSW(b *testing.B) {
	for _, d := range []int{384, 512} {
		for _, n := range []int{500, 1000, 2000, 4000, 8000, 16000} {
			bd := benchIndex(n, d)
			for _, impl := range []struct {
				name string
				idx  Index
			}{{"exact", bd.exact}, {"hnsw", bd.hnsw}} {
				b.Run(fmt.Sprintf("d=%d/n=%d/%s", d, n, impl.name), func(b *testing.B) {
					i := 0
					for b.Loop() {
						impl.idx.Search(bd.queries[i%len(bd.queries)], 10, nil)
						i++
					}
				})
			}
		}
	}
}

// BenchmarkFilteredSearch compares a filtered graph search with an exact
// scan of the in-scope keys as the filter gets more selective (the
// MinSelectivity default of Auto).
func BenchmarkFilteredSearch(b *testing.B) {
	bd := benchIndex(20000, 384)
	for _, every := range []int{2, 5, 10, 20, 50, 100} {
		keep := func(k Key) bool { return k%Key(every) == 0 }
		for _, impl := range []struct {
			name string
			fn   func(q []float32) []Neighbor
		}{
			{"hnsw", func(q []float32) []Neighbor { return bd.hnsw.Search(q, 10, keep) }},
			{"exact", func(q []float32) []Neighbor { return bd.hnsw.SearchExact(q, 10, keep) }},
		} {
			b.Run(fmt.Sprintf("in-scope=1/%d/%s", every, impl.name), func(b *testing.B) {
				i := 0
				for b.Loop() {
					impl.fn(bd.queries[i%len(bd.queries)])
					i++
				}
			})
		}
	}
}
