package vector

import (
	"math"
	"math/rand"
	"slices"
)

// clustered returns n random unit vectors drawn around `clusters` random
// centres with Gaussian noise of the given spread: the structure of real
// embeddings, and the case that breaks a graph without the neighbour
// selection heuristic.
func clustered(rng *rand.Rand, n, dims, clusters int, spread float64) [][]float32 {
	centres := make([][]float64, clusters)
	for i := range centres {
		centres[i] = make([]float64, dims)
		for j := range centres[i] {
			centres[i][j] = rng.NormFloat64()
		}
		unit64(centres[i])
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[rng.Intn(clusters)]
		v := make([]float32, dims)
		for j := range v {
			v[j] = float32(c[j] + spread*rng.NormFloat64()/math.Sqrt(float64(dims)))
		}
		out[i] = v
	}
	return out
}

func unit64(v []float64) {
	var s float64
	for _, x := range v {
		s += x * x
	}
	s = math.Sqrt(s)
	for i := range v {
		v[i] /= s
	}
}

// unit returns a normalised copy of v.
func unit(v []float32) []float32 {
	out := slices.Clone(v)
	normalizeInPlace(out)
	return out
}

// bruteForce returns the keys (indexes into base) of the k vectors most
// similar to q among those the filter admits, best first. It shares no code
// with the indexes under test except normalisation.
func bruteForce(base [][]float32, q []float32, k int, admit func(int) bool) []Key {
	qn := unit(q)
	type hit struct {
		i int
		s float64
	}
	hits := make([]hit, 0, len(base))
	for i, v := range base {
		if admit != nil && !admit(i) {
			continue
		}
		var s, nn float64
		for j, x := range v {
			s += float64(qn[j]) * float64(x)
			nn += float64(x) * float64(x)
		}
		if nn > 0 {
			s /= math.Sqrt(nn)
		}
		hits = append(hits, hit{i, s})
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.s > b.s {
			return -1
		}
		if a.s < b.s {
			return 1
		}
		return a.i - b.i
	})
	out := make([]Key, 0, k)
	for _, h := range hits[:min(k, len(hits))] {
		out = append(out, Key(h.i))
	}
	return out
}

// overlap is |got ∩ want| / |want|.
func overlap(got []Neighbor, want []Key) float64 {
	if len(want) == 0 {
		return 1
	}
	n := 0
	for _, w := range want {
		for _, g := range got {
			if g.Key == w {
				n++
				break
			}
		}
	}
	return float64(n) / float64(len(want))
}

func newRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }
