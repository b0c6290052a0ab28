package segment

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// TestFindIDIsSortSearch holds the id index's directory search to a binary
// search's answers, over ids spread evenly (hashes), clustered
// and repeated, for ids present, absent and out of range.
func TestFindIDIsSortSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() uint64{
		"even":      r.Uint64,
		"small":     func() uint64 { return r.Uint64N(1000) },
		"clustered": func() uint64 { return uint64(r.IntN(4))<<62 | r.Uint64N(1<<20) },
		"skewed":    func() uint64 { v := r.Uint64N(1 << 32); return v * v },
	}
	for name, gen := range gens {
		for _, n := range []int{0, 1, 2, 15, 17, 100, 5000} {
			ids := make([]uint64, n)
			for i := range ids {
				ids[i] = gen()
			}
			slices.Sort(ids)
			x := make([]byte, 0, n*idRowSize)
			for i, id := range ids {
				x = le.AppendUint64(x, id)
				x = le.AppendUint32(x, uint32(i))
			}
			d := buildIDDir(x, n)
			probes := []uint64{0, 1, ^uint64(0), ^uint64(0) - 1}
			for range 500 {
				probes = append(probes, gen())
				if n > 0 {
					v := ids[r.IntN(n)]
					probes = append(probes, v, v-1, v+1)
				}
			}
			for _, id := range probes {
				want := sort.Search(n, func(i int) bool { return ids[i] >= id })
				if got := d.find(x, n, id); got != want {
					t.Fatalf("%s, %d ids: find(%d) = %d, want %d", name, n, id, got, want)
				}
			}
		}
	}
}
