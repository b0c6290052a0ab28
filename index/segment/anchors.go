package segment

import "sync"

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
// links pointing at it, and lists the targets by segment (s.anchorAt, in
// the order met; the note-by-note search sorts them). Every link target key is resolved once a query, and
// located in the view once (kept with the segment while the view and the
// graph's names stay the same).
func (s *searcher) anchors() {
	G := len(s.groups)
	rows := 0 // of s.anchorW
	cache := make(map[string][]uint64)
	found := make(map[uint64]Ref)
	view := s.v.uid()
	locate := func(ids []uint64) []Ref {
		var refs []Ref
		for _, id := range ids {
			ref, ok := found[id]
			if !ok {
				if ref, ok = s.v.Find(id); !ok {
					ref.seg = -1
				}
				found[id] = ref
			}
			if ref.seg >= 0 {
				refs = append(refs, ref)
			}
		}
		return refs
	}
	s.anchorAt = make([][]anchorHit, len(s.v.segs))
	for k, ss := range s.v.segs {
		byKey := ss.seg.resolved.begin(s.q.ResolveGen, ss.seg.keys)
		for g := range s.groups {
			for _, e := range s.ents[k][g] {
				it := ss.seg.anchorPostings(e)
				for it.next() {
					if ss.deleted(it.source) {
						continue
					}
					t := byKey.get(it.key)
					if t == nil {
						// The key points into the segment, which the view
						// keeps mapped for the whole search.
						key := ss.seg.keyRef(it.key)
						ids, ok := cache[key]
						if !ok {
							ids = s.q.Resolve(key)
							cache[key] = ids
						}
						if t = byKey.put(it.key, ids); t == nil {
							continue
						}
					}
					if t.view != view {
						t.refs, t.view = locate(t.ids), view
					}
					if len(t.refs) == 0 {
						continue
					}
					w := float32(s.p.Anchor*float64(it.link) + s.p.AnchorContext*float64(it.ctx))
					for _, ref := range t.refs {
						if ref == (Ref{k, it.source}) {
							continue // a note's links to itself say nothing about it
						}
						sc := s.scratch(ref.seg)
						r := sc.arow[ref.note] - 1
						if r < 0 {
							r = int32(rows)
							rows++
							sc.arow[ref.note] = r + 1
							sc.anotes = append(sc.anotes, ref.note)
							s.anchorAt[ref.seg] = append(s.anchorAt[ref.seg], anchorHit{ref.note, r})
							s.anchorW = append(s.anchorW, make([]float32, G)...)
						}
						s.anchorW[int(r)*G+g] += w
					}
				}
			}
		}
		ss.seg.resolved.end(s.q.ResolveGen)
	}
	if rows == 0 {
		s.anchorAt = nil
	}
}

// resolvedKeys keeps a segment's anchor target keys as Query.Resolve
// answered them, for the searches given the same Query.ResolveGen (the
// store's graph names unchanged): resolving a key costs a map lookup by
// string, and a common word's anchor postings name hundreds of keys.
type resolvedKeys struct {
	mu   sync.Mutex
	gen  uint64
	keys keyTable
}

// keyTable holds resolved keys by key number.
type keyTable struct {
	at   []int32 // by key number: 1 + index into keys; 0: not resolved
	keys []resolvedKey
}

// resolvedKey is the notes a link target key names: their ids, and where
// they are in the view numbered view (Ref, live notes only).
type resolvedKey struct {
	ids  []uint64
	refs []Ref
	view uint64
}

// get returns key k, nil if it was not resolved.
func (t *keyTable) get(k uint32) *resolvedKey {
	if int(k) >= len(t.at) || t.at[k] == 0 {
		return nil
	}
	return &t.keys[t.at[k]-1]
}

// put records key k's ids and returns it (nil for a key number past the
// segment's keys: corrupt, never kept).
func (t *keyTable) put(k uint32, ids []uint64) *resolvedKey {
	if int(k) >= len(t.at) {
		return nil
	}
	t.keys = append(t.keys, resolvedKey{ids: ids})
	t.at[k] = int32(len(t.keys))
	return &t.keys[len(t.keys)-1]
}

// maxResolved caps the keys a segment keeps resolved (the table by key
// number costs 4 bytes a key; a resolved key ~60 bytes and its targets).
const maxResolved = 1 << 16

// begin returns the key table of a search with generation gen over a
// segment with n keys: the kept one, locked until end, or without a
// generation one of its own.
func (r *resolvedKeys) begin(gen uint64, n uint32) *keyTable {
	if gen == 0 {
		return &keyTable{at: make([]int32, n)}
	}
	r.mu.Lock()
	if r.gen != gen || r.keys.at == nil || len(r.keys.keys) > maxResolved {
		r.gen, r.keys = gen, keyTable{at: make([]int32, n)}
	}
	return &r.keys
}

// end releases what begin took for generation gen.
func (r *resolvedKeys) end(gen uint64) {
	if gen != 0 {
		r.mu.Unlock()
	}
}
