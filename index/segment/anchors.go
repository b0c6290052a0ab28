package segment

import "slices"

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

// anchorHit is the anchor text pointing at one note of a segment: its
// weight per query word (a row of searcher.anchorW).
type anchorHit struct {
	note uint32
	row  int32
}

// anchors sums, per target note and query word, the anchor text of the
// links pointing at it, and lists the targets by segment, in note order
// (s.anchorAt). Every link target key is resolved once a query.
func (s *searcher) anchors() {
	G := len(s.groups)
	rows := make(map[uint64]int32) // target id → row of s.anchorW
	var ids []uint64               // by row
	cache := make(map[string][]uint64)
	for k, ss := range s.v.segs {
		byKey := make(map[uint32][]uint64) // this segment's keys resolved
		for g := range s.groups {
			for _, e := range s.ents[k][g] {
				it := ss.seg.anchorPostings(e)
				for it.next() {
					if ss.deleted(it.source) {
						continue
					}
					targets, ok := byKey[it.key]
					if !ok {
						// The key points into the segment, which the view
						// keeps mapped for the whole search.
						key := ss.seg.keyRef(it.key)
						if targets, ok = cache[key]; !ok {
							targets = s.q.Resolve(key)
							cache[key] = targets
						}
						byKey[it.key] = targets
					}
					src := ss.seg.NoteID(it.source)
					w := float32(s.p.Anchor*float64(it.link) + s.p.AnchorContext*float64(it.ctx))
					for _, id := range targets {
						if id == src {
							continue // a note's links to itself say nothing about it
						}
						r, ok := rows[id]
						if !ok {
							r = int32(len(ids))
							rows[id] = r
							ids = append(ids, id)
							s.anchorW = append(s.anchorW, make([]float32, G)...)
						}
						s.anchorW[int(r)*G+g] += w
					}
				}
			}
		}
	}
	if len(ids) == 0 {
		return
	}
	s.anchorAt = make([][]anchorHit, len(s.v.segs))
	for r, id := range ids {
		if ref, ok := s.v.Find(id); ok {
			s.anchorAt[ref.seg] = append(s.anchorAt[ref.seg], anchorHit{ref.note, int32(r)})
		}
	}
	for _, hs := range s.anchorAt {
		slices.SortFunc(hs, func(a, b anchorHit) int { return int(a.note) - int(b.note) })
	}
}
