package vector

import (
	"io"
	"math"
	"slices"
	"sync"
	"testing"
)

// churnCase is the data set of the delete tests (smaller under -race).
func churnCase() recallCase {
	if raceEnabled {
		return recallCase{n: 2000, dims: 32, clusters: 20, queries: 100, spread: 1.5}
	}
	return recallCase{n: 10000, dims: 64, clusters: 50, queries: 200, spread: 1.5}
}

// meanRecall searches every query and averages recall@k against brute force
// over base restricted to the live indexes.
func meanRecall(idx Index, base, queries [][]float32, k int, live func(int) bool) float64 {
	var sum float64
	for _, q := range queries {
		sum += overlap(idx.Search(q, k, nil), bruteForce(base, q, k, live))
	}
	return sum / float64(len(queries))
}

func TestDeleteChurnRecall(t *testing.T) {
	t.Parallel()
	rc := churnCase()
	all := clustered(newRand(11), rc.n+rc.queries, rc.dims, rc.clusters, rc.spread)
	base, queries := all[:rc.n], all[rc.n:]
	h := NewHNSW(rc.dims, Config{})
	for i, v := range base {
		h.Add(Key(i), v)
	}
	fresh := meanRecall(h, base, queries, 10, nil)

	// Delete 20 % (every fifth point): recall over the remaining points.
	gone := func(i int) bool { return i%5 == 0 }
	for i := 0; i < rc.n; i += 5 {
		if !h.Delete(Key(i)) {
			t.Fatalf("Delete(%d) = false", i)
		}
	}
	if h.Len() != rc.n-rc.n/5 {
		t.Fatalf("Len = %d after deleting %d of %d", h.Len(), rc.n/5, rc.n)
	}
	afterDelete := meanRecall(h, base, queries, 10, func(i int) bool { return !gone(i) })
	for _, nb := range h.Search(queries[0], 50, nil) {
		if gone(int(nb.Key)) {
			t.Fatalf("deleted key %d returned", nb.Key)
		}
	}
	// Re-add them.
	for i := 0; i < rc.n; i += 5 {
		h.Add(Key(i), base[i])
	}
	afterReAdd := meanRecall(h, base, queries, 10, nil)
	t.Logf("%d×%d-d recall@10: fresh %.4f, after deleting 20%% %.4f, after re-adding %.4f (tombstones %d, slots %d)",
		rc.n, rc.dims, fresh, afterDelete, afterReAdd, h.Tombstones(), h.n)
	if afterDelete < 0.95 || afterReAdd < 0.95 {
		t.Errorf("recall after churn %.4f / %.4f, want ≥ 0.95", afterDelete, afterReAdd)
	}
	if h.Len() != rc.n {
		t.Errorf("Len = %d, want %d", h.Len(), rc.n)
	}
	if h.n > rc.n+rc.n/purgeFraction+purgeMin {
		t.Errorf("%d slots for %d vectors: purge did not reclaim tombstones", h.n, rc.n)
	}
}

func TestAddDeleteAddSameKey(t *testing.T) {
	t.Parallel()
	for name, idx := range allKinds(8) {
		vecs := clustered(newRand(3), 300, 8, 4, 1.5)
		for i, v := range vecs {
			idx.Add(Key(i), v)
		}
		for round := range 5 {
			if !idx.Delete(7) {
				t.Fatalf("%s round %d: Delete(7) = false", name, round)
			}
			if idx.Delete(7) {
				t.Fatalf("%s: second Delete(7) = true", name)
			}
			idx.Add(7, vecs[(round+1)*11])
			got := idx.Search(vecs[(round+1)*11], 1, nil)
			if len(got) != 1 || math.Abs(float64(got[0].Score)-1) > 1e-4 {
				t.Fatalf("%s round %d: re-added vector not found first: %v", name, round, got)
			}
		}
		if idx.Len() != len(vecs) {
			t.Errorf("%s: Len = %d, want %d", name, idx.Len(), len(vecs))
		}
	}
}

// allKinds returns one empty index of each implementation.
func allKinds(dims int) map[string]Index {
	return map[string]Index{
		"exact": NewExact(dims),
		"hnsw":  NewHNSW(dims, Config{M: 8, EfConstruction: 64}),
		"auto":  NewAuto(dims, AutoOptions{Threshold: 100}),
	}
}

func TestReAddReplaces(t *testing.T) {
	t.Parallel()
	for name, idx := range allKinds(4) {
		idx.Add(1, []float32{1, 0, 0, 0})
		idx.Add(2, []float32{0, 1, 0, 0})
		idx.Add(1, []float32{0, 0, 2, 0}) // replaces; normalised
		if idx.Len() != 2 {
			t.Errorf("%s: Len = %d, want 2", name, idx.Len())
		}
		got := idx.Search([]float32{0, 0, 1, 0}, 2, nil)
		if len(got) != 2 || got[0].Key != 1 || math.Abs(float64(got[0].Score)-1) > 1e-6 {
			t.Errorf("%s: got %v, want key 1 with score 1 first", name, got)
		}
		if got := idx.Search([]float32{1, 0, 0, 0}, 1, nil); got[0].Score > 1e-6 {
			t.Errorf("%s: old vector still found: %v", name, got)
		}
	}
}

func TestCallerSliceNotRetained(t *testing.T) {
	t.Parallel()
	for name, idx := range allKinds(3) {
		v := []float32{3, 4, 0}
		idx.Add(1, v)
		v[0], v[1], v[2] = 0, 0, 1
		got := idx.Search([]float32{3, 4, 0}, 1, nil)
		if len(got) != 1 || math.Abs(float64(got[0].Score)-1) > 1e-6 {
			t.Errorf("%s: index changed with the caller's slice: %v", name, got)
		}
	}
}

func TestDeleteEntryPoint(t *testing.T) {
	t.Parallel()
	vecs := clustered(newRand(5), 2000, 16, 10, 1.5)
	h := NewHNSW(16, Config{})
	for i, v := range vecs {
		h.Add(Key(i), v)
	}
	deleted := map[int]bool{}
	for range 200 {
		ep, _ := h.loadEntry()
		key := int(h.keys[ep])
		if !h.Delete(Key(key)) {
			t.Fatalf("Delete(entry %d) = false", key)
		}
		deleted[key] = true
		ep, top := h.loadEntry()
		if h.state[ep] != slotLive || int(h.levels[ep]) != top {
			t.Fatalf("entry point %d not live at its level after delete", ep)
		}
	}
	queries := clustered(newRand(6), 50, 16, 10, 1.5)
	r := meanRecall(h, vecs, queries, 10, func(i int) bool { return !deleted[i] })
	if r < 0.95 {
		t.Errorf("recall after deleting 200 entry points %.4f, want ≥ 0.95", r)
	}
}

func TestDeleteAll(t *testing.T) {
	t.Parallel()
	for name, idx := range allKinds(8) {
		vecs := clustered(newRand(9), 500, 8, 5, 1.5)
		for round := range 2 {
			for i, v := range vecs {
				idx.Add(Key(i), v)
			}
			for i := range vecs {
				if !idx.Delete(Key(i)) {
					t.Fatalf("%s round %d: Delete(%d) = false", name, round, i)
				}
			}
			if idx.Len() != 0 {
				t.Fatalf("%s: Len = %d after deleting everything", name, idx.Len())
			}
			if got := idx.Search(vecs[0], 5, nil); len(got) != 0 {
				t.Fatalf("%s: search in an empty index returned %v", name, got)
			}
		}
		idx.Add(42, vecs[3])
		if got := idx.Search(vecs[3], 5, nil); len(got) != 1 || got[0].Key != 42 {
			t.Errorf("%s: after refilling, got %v", name, got)
		}
	}
}

func TestConcurrentAddSearchDelete(t *testing.T) {
	t.Parallel()
	n := 4000
	if raceEnabled {
		n = 1500
	}
	vecs := clustered(newRand(13), n, 16, 10, 1.5)
	for name, idx := range allKinds(16) {
		var wg sync.WaitGroup
		for w := range 3 {
			wg.Add(1)
			go func() { // writers: disjoint keys, some deleted again
				defer wg.Done()
				for i := w; i < n; i += 3 {
					idx.Add(Key(i), vecs[i])
					if i%10 == 0 {
						idx.Delete(Key(i))
					}
				}
			}()
		}
		for r := range 2 {
			wg.Add(1)
			go func() { // readers
				defer wg.Done()
				for i := r; i < n; i += 7 {
					for _, nb := range idx.Search(vecs[i], 5, nil) {
						if nb.Score < -1.001 || nb.Score > 1.001 {
							t.Errorf("%s: score %v out of range", name, nb.Score)
						}
					}
					idx.Len()
					rare := func(k Key) bool { return k%50 == 0 }
					for _, nb := range idx.Search(vecs[i], 5, rare) {
						if !rare(nb.Key) {
							t.Errorf("%s: filtered search returned key %d", name, nb.Key)
						}
					}
					if i%100 == r {
						if err := idx.Save(io.Discard); err != nil {
							t.Errorf("%s: Save: %v", name, err)
						}
					}
				}
			}()
		}
		wg.Wait()
		want := n - (n+9)/10
		if idx.Len() != want {
			t.Errorf("%s: Len = %d, want %d", name, idx.Len(), want)
		}
		queries := clustered(newRand(14), 50, 16, 10, 1.5)
		if r := meanRecall(idx, vecs, queries, 10, func(i int) bool { return i%10 != 0 }); r < 0.95 {
			t.Errorf("%s: recall after concurrent build %.4f, want ≥ 0.95", name, r)
		}
	}
}

// TestFilteredSearch puts the nearest vectors out of scope: the filter
// admits only odd keys, and even keys sit right next to every query.
func TestFilteredSearch(t *testing.T) {
	t.Parallel()
	n := 4000
	if raceEnabled {
		n = 1500
	}
	rng := newRand(17)
	base := clustered(rng, n, 32, 10, 1.5)
	queries := clustered(rng, 40, 32, 10, 1.5)
	// Make every even key a near-copy of a query.
	for i, q := range queries {
		for j := range 10 {
			v := slices.Clone(q)
			v[j] += 0.01
			base[2*(i*10+j)] = v
		}
	}
	odd := func(k Key) bool { return k%2 == 1 }
	rare := func(k Key) bool { return k%97 == 1 }
	for name, idx := range allKinds(32) {
		for i, v := range base {
			idx.Add(Key(i), v)
		}
		for _, f := range []struct {
			name string
			keep Filter
		}{{"odd", odd}, {"rare", rare}} {
			var sum float64
			for _, q := range queries {
				got := idx.Search(q, 10, f.keep)
				if len(got) != 10 {
					t.Fatalf("%s %s: %d hits, want 10", name, f.name, len(got))
				}
				for _, nb := range got {
					if !f.keep(nb.Key) {
						t.Fatalf("%s %s: out-of-scope key %d returned", name, f.name, nb.Key)
					}
				}
				if !slices.IsSortedFunc(got, func(a, b Neighbor) int { return cmpScore(b.Score, a.Score) }) {
					t.Fatalf("%s %s: results not sorted best first: %v", name, f.name, got)
				}
				sum += overlap(got, bruteForce(base, q, 10, func(i int) bool { return f.keep(Key(i)) }))
			}
			if r := sum / float64(len(queries)); r < 0.95 {
				t.Errorf("%s %s: filtered recall %.4f, want ≥ 0.95", name, f.name, r)
			}
		}
	}
}

func cmpScore(a, b float32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestSearchKeys(t *testing.T) {
	t.Parallel()
	vecs := clustered(newRand(19), 1000, 16, 5, 1.5)
	keys := []Key{3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987, 5, 99999}
	for name, idx := range allKinds(16) {
		for i, v := range vecs {
			idx.Add(Key(i), v)
		}
		s, ok := idx.(interface {
			SearchKeys([]float32, int, []Key) []Neighbor
		})
		if !ok {
			t.Fatalf("%s has no SearchKeys", name)
		}
		got := s.SearchKeys(vecs[0], 5, keys)
		want := bruteForce(vecs, vecs[0], 5, func(i int) bool { return slices.Contains(keys, Key(i)) })
		if len(got) != 5 || overlap(got, want) != 1 {
			t.Errorf("%s: SearchKeys = %v, want keys %v", name, got, want)
		}
	}
}

func TestDimensionMismatchPanics(t *testing.T) {
	t.Parallel()
	for name, idx := range allKinds(4) {
		if p := tryOp(func() { idx.Add(1, []float32{1, 2, 3}) }); p == nil {
			t.Errorf("%s: Add with 3 dims did not panic", name)
		}
		if idx.Dims() != 4 {
			t.Errorf("%s: Dims = %d", name, idx.Dims())
		}
	}
}

func TestAutoSwitches(t *testing.T) {
	t.Parallel()
	a := NewAuto(8, AutoOptions{Threshold: 200})
	vecs := clustered(newRand(23), 400, 8, 4, 1.5)
	for i, v := range vecs {
		a.Add(Key(i), v)
		if want := i+1 >= 200; a.IsGraph() != want {
			t.Fatalf("after %d adds IsGraph = %v", i+1, a.IsGraph())
		}
	}
	for i := range 320 {
		a.Delete(Key(i))
	}
	if a.IsGraph() || a.Len() != 80 {
		t.Fatalf("after deletes: IsGraph %v Len %d, want exact with 80", a.IsGraph(), a.Len())
	}
	if got := a.Search(vecs[350], 1, nil); len(got) != 1 || got[0].Key != 350 {
		t.Errorf("search after switching back: %v", got)
	}
}

func TestHeaps(t *testing.T) {
	t.Parallel()
	rng := newRand(29)
	var lo minHeap
	var hi maxHeap
	var ds []float32
	for i := range 500 {
		d := rng.Float32()
		ds = append(ds, d)
		lo.push(cand{uint32(i), d})
		hi.push(cand{uint32(i), d})
	}
	slices.Sort(ds)
	for i := range ds {
		if got := lo.pop().d; got != ds[i] {
			t.Fatalf("minHeap pop %d = %v, want %v", i, got, ds[i])
		}
		if got := hi.pop().d; got != ds[len(ds)-1-i] {
			t.Fatalf("maxHeap pop %d = %v, want %v", i, got, ds[len(ds)-1-i])
		}
	}
}

func TestDot(t *testing.T) {
	t.Parallel()
	rng := newRand(31)
	for n := 1; n <= 70; n++ {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		for i := range a {
			a[i], b[i] = rng.Float32()-0.5, rng.Float32()-0.5
			want += float64(a[i]) * float64(b[i])
		}
		if got := dot(a, b); math.Abs(float64(got)-want) > 1e-5 {
			t.Errorf("dot n=%d = %v, want %v", n, got, want)
		}
		if got := dotUnrolled(a, b); math.Abs(float64(got)-want) > 1e-5 {
			t.Errorf("dotUnrolled n=%d = %v, want %v", n, got, want)
		}
	}
}

// SearchExact scores every vector, graph or not: it finds what a scan
// finds, for queries far from every vector too (where a graph search
// misses most).
func TestAutoSearchExact(t *testing.T) {
	t.Parallel()
	rng := newRand(29)
	vecs := clustered(rng, 600, 16, 6, 1.5)
	a := NewAuto(16, AutoOptions{Threshold: 200})
	e := NewExact(16)
	for i, v := range vecs {
		a.Add(Key(i), v)
		e.Add(Key(i), v)
	}
	if !a.IsGraph() {
		t.Fatal("not a graph")
	}
	for range 50 {
		q := make([]float32, 16)
		for d := range q {
			q[d] = float32(rng.NormFloat64())
		}
		got, want := a.SearchExact(q, 3, nil), e.Search(q, 3, nil)
		if len(got) != len(want) {
			t.Fatalf("%d results, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i].Key != want[i].Key {
				t.Fatalf("result %d: key %d, want %d", i, got[i].Key, want[i].Key)
			}
		}
	}
}
