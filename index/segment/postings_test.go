package segment

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// TestSkipVarints checks the eight-bytes-at-a-time skip against reading
// the varints one by one, on runs of short and long varints, and on
// truncated input.
func TestSkipVarints(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		var b []byte
		var ends []int // offset after each varint
		for range r.IntN(60) {
			v := uint64(r.IntN(100))
			if r.IntN(3) == 0 {
				v = r.Uint64() >> r.IntN(64)
			}
			b = binary.AppendUvarint(b, v)
			ends = append(ends, len(b))
		}
		if r.IntN(4) == 0 && len(b) > 0 && b[len(b)-1] < 0x80 {
			b = append(b, 0x81) // a truncated varint after the last
		}
		for n := 0; n <= len(ends)+1; n++ {
			got, ok := skipVarints(b, uint64(n))
			switch {
			case n > len(ends):
				if ok {
					t.Fatalf("trial %d: skipping %d of %d varints succeeded", trial, n, len(ends))
				}
			case !ok:
				t.Fatalf("trial %d: skipping %d of %d varints failed", trial, n, len(ends))
			default:
				want := 0
				if n > 0 {
					want = ends[n-1]
				}
				if len(b)-len(got) != want {
					t.Fatalf("trial %d: skipping %d varints left offset %d, want %d", trial, n, len(b)-len(got), want)
				}
			}
		}
	}
}
