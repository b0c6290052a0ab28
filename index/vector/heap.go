package vector

// cand is a node with its distance to the query. Distances in this package
// are negated similarities (d = -dot), so lower is better and the score of a
// hit is exactly -d.
type cand struct {
	id uint32
	d  float32
}

// minHeap keeps the closest candidate on top: the HNSW candidate queue C.
type minHeap []cand

func (h *minHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].d <= s[i].d {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *minHeap) pop() cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	*h = s
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].d < s[l].d {
			m = r
		}
		if s[i].d <= s[m].d {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	return top
}

// maxHeap keeps the farthest candidate on top: the HNSW result set W, which
// evicts its worst element when it grows past ef.
type maxHeap []cand

func (h *maxHeap) push(c cand) {
	*h = append(*h, c)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].d >= s[i].d {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *maxHeap) pop() cand {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	*h = s[:n]
	h.fix0()
	return top
}

// top returns the farthest element; the heap must not be empty.
func (h maxHeap) top() cand { return h[0] }

// sortedAscending empties the heap into a slice ordered best (lowest d) first.
func (h *maxHeap) sortedAscending() []cand {
	out := make([]cand, len(*h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = h.pop()
	}
	return out
}

// topK keeps the k best of a stream of candidates (used by exact scans).
type topK struct {
	k int
	h maxHeap
}

func (t *topK) offer(c cand) {
	if len(t.h) < t.k {
		t.h.push(c)
	} else if c.d < t.h[0].d {
		t.h[0] = c
		t.h.fix0()
	}
}

// fix0 restores the heap after its root was replaced.
func (h maxHeap) fix0() {
	n := len(h)
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h[r].d > h[l].d {
			m = r
		}
		if h[i].d >= h[m].d {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
