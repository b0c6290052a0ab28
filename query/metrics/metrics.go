// Package metrics computes the retrieval-quality measures ragctl eval
// reports: nDCG@k (exponential gain, as BEIR and trec_eval with binary
// judgments), recall@k and MRR@k, from a ranked list of document ids and
// graded relevance judgments. It has no dependencies on the index so
// clients can use it.
package metrics

import (
	"math"
	"sort"
)

// Judgments maps a document id to its graded relevance (> 0 is relevant).
type Judgments map[string]int

// NDCG returns nDCG@k of ranked against rel, with gain 2^rel − 1.
func NDCG(ranked []string, rel Judgments, k int) float64 {
	dcg := 0.0
	for i, id := range firstK(ranked, k) {
		if g := rel[id]; g > 0 {
			dcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
		}
	}
	var ideal []int
	for _, g := range rel {
		if g > 0 {
			ideal = append(ideal, g)
		}
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ideal)))
	idcg := 0.0
	for i, g := range ideal {
		if i >= k {
			break
		}
		idcg += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i+2))
	}
	if idcg == 0 {
		return 0
	}
	return dcg / idcg
}

// Recall returns the share of relevant documents found in the first k.
func Recall(ranked []string, rel Judgments, k int) float64 {
	total := 0
	for _, g := range rel {
		if g > 0 {
			total++
		}
	}
	if total == 0 {
		return 0
	}
	found := 0
	for _, id := range firstK(ranked, k) {
		if rel[id] > 0 {
			found++
		}
	}
	return float64(found) / float64(total)
}

// MRR returns the reciprocal rank of the first relevant document within the
// first k, or 0.
func MRR(ranked []string, rel Judgments, k int) float64 {
	for i, id := range firstK(ranked, k) {
		if rel[id] > 0 {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// Dedup keeps the first occurrence of every id, preserving order: chunk
// results become a ranked list of documents.
func Dedup(ids []string) []string {
	seen := make(map[string]bool, len(ids))
	out := ids[:0:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// Percentile returns the p-th percentile (0–100) of xs by nearest rank.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	if i < 0 {
		i = 0
	}
	return s[i]
}

func firstK(xs []string, k int) []string {
	if len(xs) > k {
		return xs[:k]
	}
	return xs
}
