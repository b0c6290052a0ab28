package segment

// cand is a note in the heap of the best: what a NoteHit is made of, with
// no pointer (the heap moves candidates about without write barriers).
type cand struct {
	Score     float64
	ID        uint64
	ref       Ref
	best      uint32  // the best chunk
	bestScore float32 // its score
	matched   int32
	w         int8  // the streamer that decided it
	row       int32 // its whole-note sums in that streamer's rows
}

// hitHeap is a min-heap of candidates on score; ties are broken by id, so
// results do not depend on segment layout. Its operations are its own
// (container/heap would box every candidate it moves).
type hitHeap []cand

func (h hitHeap) Len() int { return len(h) }

// less orders the weaker hit first.
func (h hitHeap) less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	return h[i].ID > h[j].ID
}

func (h hitHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (h hitHeap) down(i int) {
	n := len(h)
	for {
		j := 2*i + 1
		if j >= n {
			return
		}
		if r := j + 1; r < n && h.less(r, j) {
			j = r
		}
		if !h.less(j, i) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}

// push adds x.
func (h *hitHeap) push(x cand) {
	*h = append(*h, x)
	h.up(len(*h) - 1)
}

// replaceMin puts x in place of the weakest hit.
func (h hitHeap) replaceMin(x cand) {
	h[0] = x
	h.down(0)
}

// pop removes and returns the weakest hit.
func (h *hitHeap) pop() cand {
	old := *h
	n := len(old) - 1
	old[0], old[n] = old[n], old[0]
	x := old[n]
	*h = old[:n]
	h.down(0)
	return x
}

// beats reports whether a hit with score and id would enter the full heap.
func (h hitHeap) beats(score float64, id uint64) bool {
	return score > h[0].Score || score == h[0].Score && id < h[0].ID
}
