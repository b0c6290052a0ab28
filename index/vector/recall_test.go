package vector

import (
	"math/rand"
	"testing"
	"time"
)

// This file is a generic recall-versus-exact harness. An implementation is
// measured by passing its constructor to measureRecall; to measure another
// implementation (another library wrapped to Index, a different Config),
// change only the constructor in the test functions below.

// constructor builds an empty index of the given dimension.
type constructor func(dims int) Index

// ourHNSW is the implementation the recall bar is asserted on.
func ourHNSW(dims int) Index { return NewHNSW(dims, Config{}) }

// recallCase is one data set of clustered unit vectors.
type recallCase struct {
	n, dims, clusters int
	queries           int
	spread            float64
}

// recallResult is what measureRecall reports.
type recallResult struct {
	recall   float64 // mean recall@k of fresh queries against brute force
	selfHit  float64 // fraction of stored vectors found in their own top k
	build    time.Duration
	perQuery time.Duration
	panicked any // non-nil when the index panicked (the run then stopped)
}

// measureRecall builds an index with ctor over rc's vectors and measures it
// against brute force. A panic inside the index is caught and reported in
// the result, so a broken implementation cannot take the test binary down.
func measureRecall(t testing.TB, ctor constructor, rc recallCase, k int) (res recallResult) {
	t.Helper()
	rng := rand.New(rand.NewSource(int64(rc.n*31 + rc.dims)))
	all := clustered(rng, rc.n+rc.queries, rc.dims, rc.clusters, rc.spread)
	base, queries := all[:rc.n], all[rc.n:]
	defer func() {
		if r := recover(); r != nil {
			res.panicked = r
		}
	}()
	idx := ctor(rc.dims)
	start := time.Now()
	for i, v := range base {
		idx.Add(Key(i), v)
	}
	res.build = time.Since(start)
	if idx.Len() != rc.n {
		t.Errorf("Len = %d after %d adds", idx.Len(), rc.n)
	}
	var sum float64
	var searching time.Duration
	for _, q := range queries {
		want := bruteForce(base, q, k, nil)
		t0 := time.Now()
		got := idx.Search(q, k, nil)
		searching += time.Since(t0)
		sum += overlap(got, want)
	}
	res.recall = sum / float64(len(queries))
	res.perQuery = searching / time.Duration(len(queries))
	hits, probes := 0, 0
	for i := 0; i < rc.n; i += max(1, rc.n/500) {
		probes++
		for _, nb := range idx.Search(base[i], k, nil) {
			if nb.Key == Key(i) {
				hits++
				break
			}
		}
	}
	res.selfHit = float64(hits) / float64(probes)
	return res
}

// recallCases are the data sets of the recall bar: 10k × 64-d and 5k ×
// 384-d, smaller under the race detector.
func recallCases() []recallCase {
	if raceEnabled {
		return []recallCase{
			{n: 2000, dims: 64, clusters: 20, queries: 100, spread: 1.5},
			{n: 1000, dims: 384, clusters: 10, queries: 50, spread: 1.5},
		}
	}
	return []recallCase{
		{n: 10000, dims: 64, clusters: 50, queries: 200, spread: 1.5},
		{n: 5000, dims: 384, clusters: 25, queries: 100, spread: 1.5},
	}
}

func TestRecallHNSW(t *testing.T) {
	t.Parallel()
	for _, rc := range recallCases() {
		res := measureRecall(t, ourHNSW, rc, 10)
		if res.panicked != nil {
			t.Fatalf("%d×%d: panic: %v", rc.n, rc.dims, res.panicked)
		}
		t.Logf("%d×%d-d: recall@10 %.4f, self-hit %.4f, build %v, %v/query",
			rc.n, rc.dims, res.recall, res.selfHit, res.build, res.perQuery)
		if res.recall < 0.95 {
			t.Errorf("%d×%d-d: recall@10 = %.4f, want ≥ 0.95", rc.n, rc.dims, res.recall)
		}
		if res.selfHit < 0.99 {
			t.Errorf("%d×%d-d: a stored vector found itself %.4f of the time, want ≥ 0.99", rc.n, rc.dims, res.selfHit)
		}
	}
}

func TestRecallExactAndAuto(t *testing.T) {
	t.Parallel()
	rc := recallCase{n: 3000, dims: 64, clusters: 20, queries: 50, spread: 1.5}
	if raceEnabled {
		rc.n = 1000
	}
	ctors := map[string]constructor{
		"exact": func(d int) Index { return NewExact(d) },
		"auto":  func(d int) Index { return NewAuto(d, AutoOptions{Threshold: rc.n / 2}) },
	}
	for name, ctor := range ctors {
		res := measureRecall(t, ctor, rc, 10)
		if res.panicked != nil {
			t.Fatalf("%s: panic: %v", name, res.panicked)
		}
		want := 0.95
		if name == "exact" {
			want = 1
		}
		if res.recall < want || res.selfHit < 0.99 {
			t.Errorf("%s: recall %.4f self-hit %.4f, want ≥ %.2f and ≥ 0.99", name, res.recall, res.selfHit, want)
		}
	}
}
