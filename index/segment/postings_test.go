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

// TestAnchorPostingsRead checks anchorIter, whose usual postings are read
// inline, against the varints it was given: values of one to five bytes,
// near the end of the section and cut short.
func TestAnchorPostingsRead(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	val := func() uint32 {
		switch r.IntN(4) {
		case 0:
			return uint32(r.IntN(128))
		case 1:
			return uint32(r.IntN(1 << 14))
		case 2:
			return uint32(r.IntN(1 << 21))
		}
		return r.Uint32()
	}
	for trial := range 500 {
		type post struct{ source, key, link, ctx uint32 }
		var want []post
		var b []byte
		source := uint32(0)
		for range r.IntN(40) {
			p := post{source + val()%(1<<20), val(), val(), val()}
			if p.source < source {
				break
			}
			for _, v := range []uint32{p.source - source, p.key, p.link, p.ctx} {
				b = binary.AppendUvarint(b, uint64(v))
			}
			source = p.source
			want = append(want, p)
		}
		cut := len(b)
		if trial%5 == 0 && cut > 0 {
			cut = r.IntN(cut) // truncated: what is whole is read, then it stops
		}
		it := anchorIter{d: decoder{b: b[:cut]}, left: uint64(len(want))}
		n := 0
		for it.next() {
			if n >= len(want) {
				t.Fatalf("trial %d: posting %d read past the %d written", trial, n, len(want))
			}
			if got := (post{it.source, it.key, it.link, it.ctx}); got != want[n] {
				t.Fatalf("trial %d: posting %d read as %+v, written %+v", trial, n, got, want[n])
			}
			n++
		}
		if cut == len(b) && n != len(want) {
			t.Fatalf("trial %d: %d postings read of %d", trial, n, len(want))
		}
	}
}
