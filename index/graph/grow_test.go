package graph

import (
	"slices"
	"testing"
)

func TestGrow(t *testing.T) {
	for _, n := range []int{0, 1, 7, growPiece/4 - 1, growPiece / 4, growPiece, 3*growPiece + 5} {
		xs := make([]uint32, n)
		for i := range xs {
			xs[i] = uint32(i * 7)
		}
		want := slices.Clone(xs)
		for _, more := range []int{0, 1, 1000} {
			got := grow(xs, more)
			if !slices.Equal(got, want) || cap(got)-len(got) < more {
				t.Fatalf("grow(%d values, %d): len %d cap %d, values kept %v", n, more, len(got), cap(got), slices.Equal(got, want))
			}
		}
		ext := extend(xs, 3)
		if len(ext) != n+3 || !slices.Equal(ext[:n], want) || ext[n] != 0 || ext[n+2] != 0 {
			t.Fatalf("extend(%d values, 3): len %d", n, len(ext))
		}
	}
	// Values beyond the length of a reused array are cleared by extend.
	xs := []uint64{1, 2, 3, 4}
	ys := extend(xs[:2], 2)
	if !slices.Equal(ys, []uint64{1, 2, 0, 0}) {
		t.Errorf("extend over old values: %v", ys)
	}
}
