package segment

import (
	"slices"
	"sync"
)

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
		byKey := ss.seg.resolved.begin(s.q.ResolveGen)
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
		ss.seg.resolved.end(s.q.ResolveGen)
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

// resolvedKeys keeps a segment's anchor target keys as Query.Resolve
// answered them, for the searches given the same Query.ResolveGen (the
// store's graph names unchanged): resolving a key costs a map lookup by
// string, and a common word's anchor postings name hundreds of keys.
type resolvedKeys struct {
	mu  sync.Mutex
	gen uint64
	ids map[uint32][]uint64 // by key number
}

// maxResolved caps the keys a segment keeps resolved.
const maxResolved = 1 << 16

// begin returns the key map of a search with generation gen: the kept one,
// locked until end, or without a generation one of its own.
func (r *resolvedKeys) begin(gen uint64) map[uint32][]uint64 {
	if gen == 0 {
		return make(map[uint32][]uint64)
	}
	r.mu.Lock()
	if r.gen != gen || r.ids == nil || len(r.ids) > maxResolved {
		r.gen, r.ids = gen, make(map[uint32][]uint64)
	}
	return r.ids
}

// end releases what begin took for generation gen.
func (r *resolvedKeys) end(gen uint64) {
	if gen != 0 {
		r.mu.Unlock()
	}
}
