package segment

import (
	"math/rand/v2"
	"testing"
)

// checkBlocks decodes every blocked term of seg and checks its block rows
// against the postings, that its impacts bound every posting and note, and
// that jumping to random chunks gives what reading every posting gives.
func checkBlocks(t *testing.T, seg *Segment, r *rand.Rand) (blocked int) {
	t.Helper()
	p := DefaultParams
	for i := range int(seg.terms) {
		_, d := seg.termAt(i)
		e := d.entry()
		if e.nPost <= blockSize {
			if e.nBlk != 0 {
				t.Fatalf("term %d: %d postings and %d blocks", i, e.nPost, e.nBlk)
			}
			continue
		}
		blocked++
		bt := seg.blocks(e)
		if bt.n == 0 {
			t.Fatalf("term %d: %d postings, no blocks", i, e.nPost)
		}
		type post struct{ chunk, note, body, head uint32 }
		var all []post
		it := seg.postings(e)
		for it.next() {
			all = append(all, post{it.chunk, seg.chunkNote(it.chunk), it.body, it.head})
		}
		if uint64(len(all)) != e.nPost {
			t.Fatalf("term %d: %d postings read, %d in the dictionary", i, len(all), e.nPost)
		}
		start := 0
		for b := range bt.n {
			end := int(bt.u32(b, brCount))
			if end <= start || end > len(all) || b < bt.n-1 && end-start < blockSize {
				t.Fatalf("term %d block %d: postings %d to %d", i, b, start, end)
			}
			last := all[end-1]
			if bt.u32(b, brLastChunk) != last.chunk || bt.u32(b, brLastNote) != last.note {
				t.Fatalf("term %d block %d: last chunk/note %d/%d, want %d/%d", i, b,
					bt.u32(b, brLastChunk), bt.u32(b, brLastNote), last.chunk, last.note)
			}
			if end < len(all) && all[end].note == last.note {
				t.Fatalf("term %d block %d ends inside note %d", i, b, last.note)
			}
			for _, avg := range []float64{5, 40, 300} {
				x := bt.x(b, p, avg, avg*3)
				sums := map[uint32][2]uint32{}
				for _, q := range all[start:end] {
					r := seg.chunkRow(q.chunk)
					bc := 1 - p.B + p.B*p.Body*float64(le.Uint16(r[crBody:]))/avg
					if xc := (p.Body*float64(q.body) + p.Heading*float64(q.head)) / bc; xc > x.c {
						t.Fatalf("term %d block %d: chunk %d has x %g over the bound %g", i, b, q.chunk, xc, x.c)
					}
					s := sums[q.note]
					sums[q.note] = [2]uint32{s[0] + q.body, s[1] + q.head}
				}
				for n, s := range sums {
					first, cnt := seg.NoteChunks(n)
					l := 0.0
					for c := first; c < first+cnt; c++ {
						l += float64(le.Uint16(seg.chunkRow(c)[crBody:]))
					}
					bn := 1 - p.B + p.B*p.Body*l/(avg*3)
					if xn := (p.Body*float64(s[0]) + p.Heading*float64(s[1])) / bn; xn > x.n {
						t.Fatalf("term %d block %d: note %d has x %g over the bound %g", i, b, n, xn, x.n)
					}
				}
			}
			start = end
		}
		if start != len(all) {
			t.Fatalf("term %d: blocks end at posting %d of %d", i, start, len(all))
		}
		for range 20 {
			var m multiIter
			m.init(seg, []termEntry{e}, nil)
			k := 0
			for range 1 + r.IntN(4) {
				c := all[len(all)-1].chunk + 1
				if r.IntN(8) != 0 {
					c = all[min(k+r.IntN(3*blockSize), len(all)-1)].chunk + uint32(r.IntN(2))
				}
				for k < len(all) && all[k].chunk < c {
					k++
				}
				ok := m.skipTo(c)
				if ok != (k < len(all)) || ok && (m.chunk != all[k].chunk || m.body != all[k].body || m.head != all[k].head) {
					t.Fatalf("term %d: skip to chunk %d gave %v %d/%d/%d, want posting %d of %d", i, c, ok, m.chunk, m.body, m.head, k, len(all))
				}
				k++
			}
		}
	}
	return blocked
}

// TestBlockBounds checks the block rows and impacts of built and merged
// segments.
func TestBlockBounds(t *testing.T) {
	notes := randomNotes(3, 900)
	r := rand.New(rand.NewPCG(1, 2))
	built, err := Open(Build(notes))
	if err != nil {
		t.Fatal(err)
	}
	a, err := Open(Build(notes[:400]))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Open(Build(notes[400:]))
	if err != nil {
		t.Fatal(err)
	}
	del := bitset(nil).clone(a.notes)
	for i := uint32(0); i < a.notes; i += 7 {
		del.set(i)
	}
	merged, err := Open(merge([]mergeInput{{seg: a, del: del}, {seg: b}}, nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, seg := range []*Segment{built, merged} {
		if n := checkBlocks(t, seg, r); n < 10 {
			t.Fatalf("%d terms with blocks: the corpus does not exercise them", n)
		}
	}
}
