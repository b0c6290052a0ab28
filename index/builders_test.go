package index

import (
	"testing"

	"github.com/dgraph-io/ristretto/v2/z"
)

func TestAllocatorsIn(t *testing.T) {
	for _, tc := range []struct {
		summary string
		want    int
	}{
		{"", 0},
		{"Tag: Builder Num: 1 Size: 28 MiB . ", 1},
		{"Tag: Builder Num: 3 Size: 92 MiB . Tag: Stream Num: 2 Size: 1.0 KiB . ", 5},
		{"something else entirely", 0},
	} {
		if got := allocatorsIn(tc.summary); got != tc.want {
			t.Errorf("allocatorsIn(%q) = %d, want %d", tc.summary, got, tc.want)
		}
	}
	// The summary of a live allocator reads as one more.
	before := allocatorsIn(z.Allocators())
	a := z.NewAllocator(1<<10, "Builder")
	if got := allocatorsIn(z.Allocators()); got != before+1 {
		t.Errorf("with one more allocator: %d, want %d", got, before+1)
	}
	a.Release()
	if got := allocatorsIn(z.Allocators()); got != before {
		t.Errorf("after its release: %d, want %d", got, before)
	}
}
