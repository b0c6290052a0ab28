package segment

// hitHeap is a min-heap of note hits on score; ties are broken by id, so
// results do not depend on segment layout.
type hitHeap []NoteHit

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	return h[i].ID > h[j].ID
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)   { *h = append(*h, x.(NoteHit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// beats reports whether a hit with score and id would enter the full heap.
func (h hitHeap) beats(score float64, id uint64) bool {
	return score > h[0].Score || score == h[0].Score && id < h[0].ID
}
