package httpembed

import (
	"fmt"
	"math"
)

// truncateRunes cuts s to at most n characters (n <= 0: no limit).
func truncateRunes(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// finish applies Matryoshka truncation to dims (0: none) and, if norm,
// L2 normalisation, in place. A vector shorter than dims is an error.
func finish(v []float32, dims int, norm bool) ([]float32, error) {
	if dims > 0 {
		if len(v) < dims {
			return nil, fmt.Errorf("server returned %d dimensions, fewer than the configured %d", len(v), dims)
		}
		v = v[:dims:dims]
	}
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, fmt.Errorf("server returned a vector with a non-finite component")
		}
	}
	if norm {
		normalize(v)
	}
	return v, nil
}

// normalize scales v to unit L2 length; a zero vector stays zero.
func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := 1 / math.Sqrt(sum)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}
