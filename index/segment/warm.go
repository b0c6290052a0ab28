package segment

import "slices"

// WarmMaxKeys bounds the keys WarmAnchors resolves: a resolved key holds
// about a hundred bytes of tables, and the 50× vault's 788,693 keys (in
// five segments) took 287 MB more resident memory warmed. A larger view's
// keys are left to the searches that meet them.
const WarmMaxKeys = 1 << 18

// warmBatch is how many keys WarmAnchors resolves under a segment's key
// table lock at a time: a search waiting for the lock waits for about a
// millisecond at most.
const warmBatch = 1024

// WarmAnchors resolves every link target key of the view's segments, as a
// search for graph names generation gen would (resolve is
// Query.Resolve), and locates the notes they name in the view, until done
// or until stop reports true (it is asked between batches of keys); it
// reports whether it went through every segment. A view of more than
// WarmMaxKeys keys is not warmed.
//
// A search resolves a key the first time one of its words' anchor
// postings names it, and keeps it for as long as the names do not change;
// a common word's postings name most of a segment's keys, so the first
// search for each common word after a start or a change of names paid for
// tens of thousands of keys (on the 10× vault, three to five times the
// search itself). Warmed ahead, in the background, the keys cost a table
// read at the first search too; a later view only relocates the notes a
// key names, which is cheap. The results are the same either way.
func (v *View) WarmAnchors(resolve func(key string) []uint64, gen uint64, stop func() bool) bool {
	if resolve == nil || gen == 0 {
		return false
	}
	s := &searcher{v: v, q: Query{Resolve: resolve, ResolveGen: gen}}
	keys := 0
	for _, ss := range v.segs {
		keys += int(ss.seg.keys)
	}
	if keys > WarmMaxKeys {
		return false
	}
	a := newAnchorSums(s)
	a.cache = nil // a key met again in another segment is resolved again: no map of every key
	for k, ss := range v.segs {
		seg := ss.seg
		// Room for every key at once (most name one note): the arenas
		// do not grow through copies left behind as garbage.
		tab := seg.resolved.begin(gen, seg.keys)
		n := int(seg.keys)
		tab.keys = slices.Grow(tab.keys, n)
		tab.ids, tab.locs, tab.refs = slices.Grow(tab.ids, n), slices.Grow(tab.locs, n), slices.Grow(tab.refs, n)
		seg.resolved.end(gen)
		for key0 := uint32(0); key0 < seg.keys; key0 += warmBatch {
			if stop() {
				return false
			}
			tab := seg.resolved.begin(gen, seg.keys)
			full := len(tab.ids) > maxResolved/2
			for key := key0; key < min(key0+warmBatch, seg.keys) && !full; key++ {
				if tab.st[key].view != a.view {
					a.locate(k, seg, tab, key)
				}
			}
			seg.resolved.end(gen)
			if full {
				break // a table past half its cap is left to the searches
			}
		}
	}
	return true
}
