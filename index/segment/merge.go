package segment

import (
	"bytes"
	"container/heap"
)

// mergeInput is a segment to merge with the notes to leave out.
type mergeInput struct {
	seg *Segment
	del bitset
}

// merge lays out one segment holding the live notes of the inputs, in
// input order. Postings are merged term by term from the inputs' sorted
// dictionaries, so no input is decoded into notes.
func merge(ins []mergeInput) []byte {
	w := newWriter()
	noteMap := make([][]int32, len(ins))    // input note → output note, -1 deleted
	chunkBase := make([][]uint32, len(ins)) // input note → output first chunk
	for k, in := range ins {
		s := in.seg
		noteMap[k] = make([]int32, s.notes)
		chunkBase[k] = make([]uint32, s.notes)
		for i := uint32(0); i < s.notes; i++ {
			if in.del.has(i) {
				noteMap[k][i] = -1
				continue
			}
			info := s.Info(i, true)
			first, n := s.NoteChunks(i)
			m := &noteMeta{id: info.ID, vault: info.Vault, path: info.Path, title: info.Title, tags: info.Tags,
				mtime: info.MTime, headings: info.Headings, nChunks: n}
			for f := range NoteFields {
				m.fieldLen[f] = s.NoteFieldLen(i, f)
			}
			chunkBase[k][i] = w.chunks
			ni := w.addNote(m)
			noteMap[k][i] = int32(ni)
			for c := first; c < first+n; c++ {
				r := s.Chunk(c)
				w.addChunk(ni, m.fieldLen[FieldTitle], &Chunk{Parent: r.Parent, LineStart: r.LineStart,
					LineEnd: r.LineEnd, Body: r.Body, Head: r.Head, Hash: r.Hash})
			}
		}
	}

	h := &dictHeap{}
	for k, in := range ins {
		if in.seg.terms > 0 {
			t, _ := in.seg.termAt(0)
			heap.Push(h, dictCursor{term: t, in: k})
		}
	}
	var pos []uint32
	var shares, whole []share
	for h.Len() > 0 {
		term := (*h)[0].term
		var group []dictCursor
		for h.Len() > 0 && bytes.Equal((*h)[0].term, term) {
			group = append(group, heap.Pop(h).(dictCursor))
		}
		// cursors of one term come out in heap order; postings must be
		// written in input order
		sortCursors(group)
		w.beginTerm()
		var df uint64
		for _, cur := range group {
			in := ins[cur.in]
			s := in.seg
			_, d := s.termAt(cur.idx)
			e := d.entry()
			shares = shares[:0]
			it := s.postings(e)
			for it.next() {
				if it.chunk >= s.chunks {
					break
				}
				n := s.chunkNote(it.chunk)
				if n >= s.notes || noteMap[cur.in][n] < 0 {
					continue
				}
				first, _ := s.NoteChunks(n)
				nn := uint32(noteMap[cur.in][n])
				pos = it.positions(pos[:0])
				w.posting(chunkBase[cur.in][n]+it.chunk-first, it.body, it.head, pos)
				if len(shares) > 0 && shares[len(shares)-1].note == nn {
					shares[len(shares)-1].n++
				} else {
					shares = append(shares, share{nn, 1})
				}
			}
			whole = whole[:0]
			nt := s.notePostings(e)
			for nt.next() {
				if nt.note >= s.notes || noteMap[cur.in][nt.note] < 0 {
					continue
				}
				nn := uint32(noteMap[cur.in][nt.note])
				w.notePosting(nn, &nt.tf)
				_, cnt := s.NoteChunks(nt.note)
				whole = append(whole, share{nn, cnt})
			}
			// A note holding the term in a note field counts all its
			// chunks; both lists are in note order.
			shares = mergeShares(shares, whole)
			for _, sh := range shares {
				w.noteTerm(sh.note, sh.n)
				df += uint64(sh.n)
			}
		}
		for _, cur := range group {
			in := ins[cur.in]
			s := in.seg
			_, d := s.termAt(cur.idx)
			e := d.entry()
			at := s.anchorPostings(e)
			for at.next() {
				if at.source >= s.notes || noteMap[cur.in][at.source] < 0 {
					continue
				}
				w.anchorPosting(uint32(noteMap[cur.in][at.source]), w.key(s.key(at.key)), at.link, at.ctx)
			}
		}
		w.endTerm(string(term), df)
		for _, cur := range group {
			if next := cur.idx + 1; next < int(ins[cur.in].seg.terms) {
				t, _ := ins[cur.in].seg.termAt(next)
				heap.Push(h, dictCursor{term: t, in: cur.in, idx: next})
			}
		}
	}
	return w.finish()
}

type dictCursor struct {
	term []byte
	in   int
	idx  int
}

type dictHeap []dictCursor

func (h dictHeap) Len() int { return len(h) }
func (h dictHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].term, h[j].term); c != 0 {
		return c < 0
	}
	return h[i].in < h[j].in
}
func (h dictHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *dictHeap) Push(x any)   { *h = append(*h, x.(dictCursor)) }
func (h *dictHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func sortCursors(cs []dictCursor) {
	for i := 1; i < len(cs); i++ {
		for j := i; j > 0 && cs[j].in < cs[j-1].in; j-- {
			cs[j], cs[j-1] = cs[j-1], cs[j]
		}
	}
}

// share is a note's share of a term's df.
type share struct{ note, n uint32 }

// mergeShares merges two note-ordered lists; a note in whole takes its
// count from whole.
func mergeShares(parts, whole []share) []share {
	if len(whole) == 0 {
		return parts
	}
	out := make([]share, 0, len(parts)+len(whole))
	i, j := 0, 0
	for i < len(parts) || j < len(whole) {
		switch {
		case j == len(whole) || i < len(parts) && parts[i].note < whole[j].note:
			out = append(out, parts[i])
			i++
		case i == len(parts) || whole[j].note < parts[i].note:
			out = append(out, whole[j])
			j++
		default:
			out = append(out, whole[j])
			i++
			j++
		}
	}
	return out
}
