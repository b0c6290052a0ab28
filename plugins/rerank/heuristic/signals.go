package heuristic

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/ragd/ragd/plugins"
)

// normalized maps the fused scores min–max onto [0, 1]; all 1 when they
// are equal. Non-finite scores count as the minimum.
func normalized(cands []plugins.Candidate) []float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, c := range cands {
		if finite(c.Score) {
			lo, hi = min(lo, c.Score), max(hi, c.Score)
		}
	}
	out := make([]float64, len(cands))
	for i, c := range cands {
		switch {
		case !finite(c.Score):
			out[i] = 0
		case hi > lo:
			out[i] = (c.Score - lo) / (hi - lo)
		default:
			out[i] = 1
		}
	}
	return out
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// recencies maps modification times onto [0, 1], oldest 0; unset times
// and lists without spread give 0. Times count as the plugin protocol
// carries them, in whole seconds with the Unix epoch meaning unset, so
// that the scores are the same whether the reranker runs in ragd's
// process or in its own.
func recencies(cands []plugins.Candidate) []float64 {
	var lo, hi int64
	first := true
	for _, c := range cands {
		if unset(c.Modified) {
			continue
		}
		t := c.Modified.Unix()
		if first {
			lo, hi, first = t, t, false
		}
		lo, hi = min(lo, t), max(hi, t)
	}
	out := make([]float64, len(cands))
	if hi <= lo {
		return out
	}
	for i, c := range cands {
		if !unset(c.Modified) {
			out[i] = float64(c.Modified.Unix()-lo) / float64(hi-lo)
		}
	}
	return out
}

func unset(t time.Time) bool { return t.IsZero() || t.Unix() == 0 }

// sameFileAbove counts, for each candidate, the candidates of the same
// file ranked above it by fused score. Ties are broken by ID, so that a
// candidate's score does not depend on its position in the list (input
// order decides only between candidates with the same ID).
func sameFileAbove(cands []plugins.Candidate) []int {
	order := make([]int, len(cands))
	for i := range order {
		order[i] = i
	}
	score := func(i int) float64 {
		if s := cands[i].Score; finite(s) {
			return s
		}
		return math.Inf(-1)
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(score(b), score(a)), cmp.Compare(cands[a].ID, cands[b].ID))
	})
	// A list is a few dozen candidates: comparing with those above costs
	// less than a map.
	out := make([]int, len(cands))
	for k, i := range order {
		for _, j := range order[:k] {
			if cands[j].Path == cands[i].Path && cands[j].Vault == cands[i].Vault {
				out[i]++
			}
		}
	}
	return out
}
