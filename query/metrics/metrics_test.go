package metrics

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestNDCG(t *testing.T) {
	rel := Judgments{"a": 1, "b": 1}
	if got := NDCG([]string{"a", "b", "c"}, rel, 10); !near(got, 1) {
		t.Errorf("perfect ranking: got %v", got)
	}
	// a at rank 2 only: (1/log2(3)) / (1 + 1/log2(3))
	want := (1 / math.Log2(3)) / (1 + 1/math.Log2(3))
	if got := NDCG([]string{"x", "a"}, rel, 10); !near(got, want) {
		t.Errorf("got %v want %v", got, want)
	}
	graded := Judgments{"a": 3, "b": 1}
	// b first then a: (1 + 7/log2(3)) / (7 + 1/log2(3))
	want = (1 + 7/math.Log2(3)) / (7 + 1/math.Log2(3))
	if got := NDCG([]string{"b", "a"}, graded, 10); !near(got, want) {
		t.Errorf("graded: got %v want %v", got, want)
	}
	if got := NDCG([]string{"a"}, Judgments{}, 10); got != 0 {
		t.Errorf("no judgments: got %v", got)
	}
	if got := NDCG([]string{"x", "y", "a"}, rel, 2); got != 0 {
		t.Errorf("cut at k: got %v", got)
	}
}

func TestRecallMRR(t *testing.T) {
	rel := Judgments{"a": 1, "b": 2, "c": 0}
	ranked := []string{"x", "b", "y", "a"}
	if got := Recall(ranked, rel, 2); !near(got, 0.5) {
		t.Errorf("recall@2 = %v", got)
	}
	if got := Recall(ranked, rel, 10); !near(got, 1) {
		t.Errorf("recall@10 = %v", got)
	}
	if got := MRR(ranked, rel, 10); !near(got, 0.5) {
		t.Errorf("mrr = %v", got)
	}
	if got := MRR(ranked, rel, 1); got != 0 {
		t.Errorf("mrr@1 = %v", got)
	}
}

func TestDedupPercentile(t *testing.T) {
	got := Dedup([]string{"a", "b", "a", "c", "b"})
	if len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
		t.Errorf("dedup = %v", got)
	}
	xs := []float64{5, 1, 4, 2, 3}
	if p := Percentile(xs, 50); p != 3 {
		t.Errorf("p50 = %v", p)
	}
	if p := Percentile(xs, 95); p != 5 {
		t.Errorf("p95 = %v", p)
	}
}
