package segment

// anchorOnly reports whether group g occurs only as anchor text.
func (s *searcher) anchorOnly(g int) bool {
	if s.q.Resolve == nil || s.p.Anchor+s.p.AnchorContext <= 0 {
		return false
	}
	for k := range s.ents {
		for _, e := range s.ents[k][g] {
			if e.nAnchor > 0 {
				return true
			}
		}
	}
	return false
}

// anchors sums, per target note and query word, the anchor text of the
// links pointing at it.
func (s *searcher) anchors() {
	s.anchor = make(map[uint64][]float32)
	cache := make(map[string][]uint64)
	G := len(s.groups)
	for k, ss := range s.v.segs {
		for g := range s.groups {
			for _, e := range s.ents[k][g] {
				it := ss.seg.anchorPostings(e)
				for it.next() {
					if ss.deleted(it.source) {
						continue
					}
					key := ss.seg.key(it.key)
					ids, ok := cache[key]
					if !ok {
						ids = s.q.Resolve(key)
						cache[key] = ids
					}
					src := ss.seg.NoteID(it.source)
					w := float32(s.p.Anchor*float64(it.link) + s.p.AnchorContext*float64(it.ctx))
					for _, id := range ids {
						if id == src {
							continue // a note's links to itself say nothing about it
						}
						a := s.anchor[id]
						if a == nil {
							a = make([]float32, G)
							s.anchor[id] = a
						}
						a[g] += w
					}
				}
			}
		}
	}
}
