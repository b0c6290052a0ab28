package segment

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// rangePostings is the least number of the query words' chunk postings a
// range of notes holds when a segment is cut for several workers: below
// it, starting a worker costs more than it saves. (A variable for the
// tests, which cut small segments.)
var rangePostings uint64 = 16 << 10

// maxWorkers bounds the workers of one search.
const maxWorkers = 4

// streamAll runs the streaming pass over the view's segments and returns
// the best depth notes. The note fields and anchor text of every segment
// are summed first (a segment a worker when they are many); then the
// segments, those with many postings for the query cut into ranges of
// notes, are scored by up to GOMAXPROCS workers at once, each into a heap
// of its own, and the heaps merged: a note that cannot enter a worker's
// full heap has depth better notes before it, so the merged heap is what
// one worker would have found.
func (s *searcher) streamAll(depth int) hitHeap {
	// Each segment's note fields are its own to sum: with several
	// segments and many note postings they are summed at once.
	notes := uint64(0)
	for k := range s.v.segs {
		s.scratch(k)
		for g := range s.groups {
			for _, e := range s.ents[k][g] {
				notes += e.nNote
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), maxWorkers, len(s.v.segs))
	if notes < 2*rangePostings {
		workers = 1
	}
	atOnce(workers, len(s.v.segs), func(_, k int) { s.looseFields(k, s.sc[k]) })
	var ranges []noteRange
	for k := range s.v.segs {
		ranges = s.cut(k, ranges)
	}
	workers = min(runtime.GOMAXPROCS(0), maxWorkers, len(ranges))
	total := uint64(0)
	for _, r := range ranges {
		total += r.postings
	}
	if total < 2*rangePostings {
		workers = 1 // not worth a second worker
	}
	ws := make([]*streamer, max(workers, 1))
	for i := range ws {
		ws[i] = newStreamer(s, i, depth)
	}
	defer func() {
		for _, w := range ws {
			w.release()
		}
	}()
	if workers <= 1 {
		// One worker: the chunks it touches go straight into the
		// segments' pooled lists.
		for i := range ranges {
			r := &ranges[i]
			sc := s.sc[r.k]
			r.touched = sc.touched
			ws[0].stream(r)
			sc.touched, r.touched = r.touched, nil
		}
	} else {
		// Each range collects the chunks it touches in a list of its
		// own, from a pool; the segment's scratch keeps the lists and
		// gives them back when it is released.
		lists := make([]*touchedList, len(ranges))
		for i := range ranges {
			lists[i] = getTouched()
			ranges[i].touched = lists[i].c
		}
		atOnce(len(ws), len(ranges), func(w, i int) { ws[w].stream(&ranges[i]) })
		for i, r := range ranges {
			lists[i].c = r.touched
			sc := s.sc[r.k]
			sc.more = append(sc.more, lists[i])
		}
	}
	h := slices.Clone(ws[0].h) // the streamers go back to their pool
	for _, w := range ws[1:] {
		for _, c := range w.h {
			switch {
			case h.Len() < depth:
				h.push(c)
			case h.beats(c.Score, c.ID):
				h.replaceMin(c)
			}
		}
	}
	// The whole-note sums of the notes kept, where proximity finds them.
	G := len(s.groups)
	for _, c := range h {
		sc := s.sc[c.ref.seg]
		sc.aggs = append(sc.aggs, noteAgg{note: c.ref.note, best: c.best, bestScore: c.bestScore})
		sc.agg[c.ref.note] = int32(len(sc.aggs))
		sc.rt = append(sc.rt, ws[c.w].rows[c.row:][:G]...)
	}
	return h
}

// cut appends segment k's ranges of notes to rs: the whole segment, or,
// when the query words' chunk postings in it are many, ranges holding
// about as many each, cut at note ends found through the block rows of
// the word with the most.
func (s *searcher) cut(k int, rs []noteRange) []noteRange {
	seg := s.v.segs[k].seg
	total, most := uint64(0), termEntry{}
	for g := range s.groups {
		if s.idf[g] == 0 {
			continue
		}
		for _, e := range s.ents[k][g] {
			total += e.nPost
			if e.nPost > most.nPost {
				most = e
			}
		}
	}
	parts := min(uint64(runtime.GOMAXPROCS(0)), maxWorkers, total/rangePostings)
	t := seg.blocks(most)
	if parts <= 1 || t.n == 0 {
		return append(rs, noteRange{k: k, n0: 0, n1: seg.notes, c0: 0, c1: seg.chunks, postings: total})
	}
	n0, c0 := uint32(0), uint32(0)
	j := 0
	for i := uint64(1); i < parts; i++ {
		want := most.nPost * i / parts
		for j < t.n && uint64(t.u32(j, brCount)) < want {
			j++
		}
		if j >= t.n {
			break
		}
		last := t.u32(j, brLastChunk)
		if last >= seg.chunks {
			break
		}
		n1 := seg.chunkNote(last) + 1
		if n1 <= n0 || n1 >= seg.notes {
			continue
		}
		c1, _ := seg.NoteChunks(n1)
		if c1 <= c0 || c1 > seg.chunks {
			continue
		}
		rs = append(rs, noteRange{k: k, n0: n0, n1: n1, c0: c0, c1: c1, postings: total / parts})
		n0, c0 = n1, c1
	}
	return append(rs, noteRange{k: k, n0: n0, n1: seg.notes, c0: c0, c1: seg.chunks, postings: total / parts})
}

// atOnce calls do(w, i) for every i below n, each once, from workers
// goroutines — the caller's and workers-1 more — each taking the next i as
// it finishes one; w numbers the goroutine (0 the caller's). It returns
// when every call has.
func atOnce(workers, n int, do func(w, i int)) {
	var next atomic.Int32
	work := func(w int) {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			do(w, i)
		}
	}
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(w)
		}()
	}
	work(0)
	wg.Wait()
}
