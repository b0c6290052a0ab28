package segment

import (
	"bytes"
	"container/heap"
	"encoding/binary"
)

// mergeInput is a segment to merge with the notes to leave out.
type mergeInput struct {
	seg *Segment
	del bitset
}

// merge lays out one segment holding the live notes of the inputs, in
// input order. Nothing is decoded that can be copied: note data, chunk rows
// and body positions are copied as bytes, postings re-coded only for their
// chunk numbers, and each note's forward list carried over with the terms
// renumbered; the dictionaries are merged term by term.
func merge(ins []mergeInput, yield func()) []byte { return mergeWriter(ins, yield).finish() }

// mergeWriter lays out the merge of ins in a writer, for finish (bytes) or
// writeFile. Its sections are sized up front to the inputs' (an upper
// bound), so that a large merge does not allocate them twice over. yield,
// if set, is called every yieldSteps steps (writer.step).
func mergeWriter(ins []mergeInput, yield func()) *writer {
	w := newWriter()
	w.yield = yield
	for i := range w.sec {
		n := 0
		for _, in := range ins {
			n += len(in.seg.sec[i])
		}
		w.sec[i] = make([]byte, 0, n)
	}
	noteMap := make([][]int32, len(ins))  // input note → output note, -1 deleted
	chunkMap := make([][]int64, len(ins)) // input chunk → output chunk − input chunk (per note), -1 deleted
	for k, in := range ins {
		s := in.seg
		noteMap[k] = make([]int32, s.notes)
		chunkMap[k] = make([]int64, s.chunks)
		for i := uint32(0); i < s.notes; i++ {
			first, n := s.NoteChunks(i)
			if in.del.has(i) {
				noteMap[k][i] = -1
				for c := first; c < first+n; c++ {
					chunkMap[k][c] = -1
				}
				continue
			}
			var fl [NoteFields]uint32
			for f := range NoteFields {
				fl[f] = s.NoteFieldLen(i, f)
			}
			base := w.chunks
			ni := w.addNoteRaw(s.NoteID(i), s.noteDataRaw(i), s.NoteMTime(i), fl, n)
			noteMap[k][i] = int32(ni)
			for c := first; c < first+n; c++ {
				chunkMap[k][c] = int64(base + (c - first))
				w.addChunkRow(ni, s.chunkRow(c))
			}
		}
	}
	// The df share of deleted notes, per input term, to take back.
	delShare := make([]map[uint32]uint64, len(ins))
	for k, in := range ins {
		if in.del == nil {
			continue
		}
		delShare[k] = make(map[uint32]uint64)
		for i := uint32(0); i < in.seg.notes; i++ {
			if in.del.has(i) {
				in.seg.forward(i, func(t, df uint32) { delShare[k][t] += uint64(df) })
			}
		}
	}
	ordMap := make([][]uint32, len(ins)) // input term → output term
	for k, in := range ins {
		ordMap[k] = make([]uint32, in.seg.terms)
	}

	h := &dictHeap{}
	for k, in := range ins {
		if in.seg.terms > 0 {
			t, _ := in.seg.termAt(0)
			heap.Push(h, dictCursor{term: t, in: k})
		}
	}
	for h.Len() > 0 {
		term := (*h)[0].term
		var group []dictCursor
		for h.Len() > 0 && bytes.Equal((*h)[0].term, term) {
			group = append(group, heap.Pop(h).(dictCursor))
		}
		// postings must be written in input order
		sortCursors(group)
		w.beginTerm()
		var df uint64
		for _, cur := range group {
			s := ins[cur.in].seg
			_, d := s.termAt(cur.idx)
			e := d.entry()
			df += e.df - delShare[cur.in][uint32(cur.idx)]
			cm := chunkMap[cur.in]
			it := s.postings(e)
			for it.next() {
				if it.chunk >= s.chunks || cm[it.chunk] < 0 {
					continue
				}
				w.postingRaw(uint32(cm[it.chunk]), it.body, it.head, it.positionsRaw())
			}
			nt := s.notePostings(e)
			for nt.next() {
				if nt.note < s.notes && noteMap[cur.in][nt.note] >= 0 {
					w.notePosting(uint32(noteMap[cur.in][nt.note]), &nt.tf)
				}
			}
		}
		for _, cur := range group {
			s := ins[cur.in].seg
			_, d := s.termAt(cur.idx)
			at := s.anchorPostings(d.entry())
			for at.next() {
				if at.source < s.notes && noteMap[cur.in][at.source] >= 0 {
					w.anchorPosting(uint32(noteMap[cur.in][at.source]), w.key(s.key(at.key)), at.link, at.ctx)
				}
			}
		}
		for _, cur := range group {
			ordMap[cur.in][cur.idx] = w.terms
		}
		w.endTerm(string(term), df)
		for _, cur := range group {
			if next := cur.idx + 1; next < int(ins[cur.in].seg.terms) {
				t, _ := ins[cur.in].seg.termAt(next)
				heap.Push(h, dictCursor{term: t, in: cur.in, idx: next})
			}
		}
	}
	// Forward lists, written in note order: the input's, terms renumbered
	// (order is kept: the output dictionary sorts like each input's).
	rows, f := w.sec[secNoteRows], &w.sec[secForward]
	var ents []byte
	for k, in := range ins {
		for i := uint32(0); i < in.seg.notes; i++ {
			n := noteMap[k][i]
			if n < 0 {
				continue
			}
			ents = ents[:0]
			count, last := 0, uint32(0)
			in.seg.forward(i, func(t, df uint32) {
				o := ordMap[k][t]
				ents = binary.AppendUvarint(ents, uint64(o-last))
				ents = binary.AppendUvarint(ents, uint64(df))
				last = o
				count++
			})
			le.PutUint32(rows[int(n)*noteRowSize+nrFwd:], uint32(len(*f)))
			*f = binary.AppendUvarint(*f, uint64(count))
			*f = append(*f, ents...)
		}
	}
	w.fwd = nil // written
	return w
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
