package segment

import (
	"slices"
	"sort"
)

// proximity rescores the best notes' matching chunks with the closeness of
// the query's words in their bodies (BM25TP-style: adjacent query words
// found next to each other, in order, earn the most) and, when the query
// quotes a phrase, keeps only notes with a chunk holding every phrase. The
// hits come best first and leave best first. Without a phrase only the
// best ProxDepth are rescored: the bonus only raises a score, so the
// others stay below them.
func (s *searcher) proximity(hits []NoteHit, phrase bool) []NoteHit {
	if len(hits) == 0 {
		return hits
	}
	head := hits
	if !phrase && len(head) > s.p.ProxDepth {
		head = hits[:s.p.ProxDepth]
	}
	order := make([]int, len(s.groups))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return s.groups[order[a]].Pos < s.groups[order[b]].Pos })

	// Candidate chunks per segment, sorted: chunks matching two words or
	// more (or any word of a phrase).
	type cand struct {
		chunk uint32
		hit   int
		pos   [][]uint32 // by group
	}
	cands := make([][]cand, len(s.v.segs))
	for i := range head {
		h := &hits[i]
		seg := s.v.segs[h.Ref.seg].seg
		sc := s.sc[h.Ref.seg]
		first, n := seg.NoteChunks(h.Ref.note)
		for c := first; c < first+n; c++ {
			if m := sc.mask[c]; m != 0 && (phrase || m&(m-1) != 0) {
				cands[h.Ref.seg] = append(cands[h.Ref.seg], cand{chunk: c, hit: i})
			}
		}
	}
	for k, cs := range cands {
		if len(cs) == 0 {
			continue
		}
		slices.SortFunc(cs, func(a, b cand) int { return int(a.chunk) - int(b.chunk) })
		for i := range cs {
			cs[i].pos = make([][]uint32, len(s.groups))
		}
		seg := s.v.segs[k].seg
		for g := range s.groups {
			for _, e := range s.ents[k][g] {
				// Blocks wholly before the next candidate are jumped
				// over unread.
				it := seg.postings(e)
				j := 0
				for j < len(cs) {
					it.jumpTo(cs[j].chunk)
					if !it.next() {
						break
					}
					for j < len(cs) && cs[j].chunk < it.chunk {
						j++
					}
					if j < len(cs) && cs[j].chunk == it.chunk {
						cs[j].pos[g] = it.positions(cs[j].pos[g])
					}
				}
			}
		}
		for g := range s.groups {
			for i := range cs {
				if len(cs[i].pos[g]) > 1 {
					slices.Sort(cs[i].pos[g]) // variants of one word merge
				}
			}
		}
	}

	// Rescore.
	type best struct {
		chunk   uint32
		score   float64
		phrased bool
	}
	bests := make([]best, len(hits))
	for i := range hits {
		bests[i] = best{chunk: ^uint32(0)}
	}
	anyPhrase := false
	for k, cs := range cands {
		sc := s.sc[k]
		seg := s.v.segs[k].seg
		for _, c := range cs {
			h := &hits[c.hit]
			score := float64(sc.acc[c.chunk]) + s.base(sc, h.Ref.note, seg.chunkRow(c.chunk))
			score += s.p.Proximity * s.closeness(order, c.pos)
			ok := !phrase || s.phrased(c.pos)
			anyPhrase = anyPhrase || ok
			b := &bests[c.hit]
			if ok && !b.phrased || ok == b.phrased && (score > b.score || score == b.score && c.chunk < b.chunk) {
				*b = best{chunk: c.chunk, score: score, phrased: ok}
			}
		}
	}
	out := hits[:0]
	for i, h := range hits {
		b := bests[i]
		if phrase && anyPhrase && !b.phrased {
			continue
		}
		if b.chunk != ^uint32(0) {
			seg := s.v.segs[h.Ref.seg].seg
			sc := s.sc[h.Ref.seg]
			if b.score > h.Best.Score || phrase && b.phrased {
				h.Best = s.chunkHit(seg, b.chunk, b.score)
				h.Score = s.noteScore(sc, seg, h.Ref.note, b.score)
			}
		}
		out = append(out, h)
	}
	slices.SortStableFunc(out, func(a, b NoteHit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		case a.ID < b.ID:
			return -1
		case a.ID > b.ID:
			return 1
		}
		return 0
	})
	return out
}

// closeness scores how near the query's consecutive words stand in a
// chunk: for each pair of words adjacent in the query, every occurrence of
// the first followed by the second at the query's distance counts 1, at
// another distance within proxWindow 1/(1+Δ)²; the pair's sum saturates
// like a term frequency and is weighed by the rarer word's idf.
func (s *searcher) closeness(order []int, pos [][]uint32) float64 {
	total := 0.0
	for i := 0; i+1 < len(order); i++ {
		a, b := order[i], order[i+1]
		pa, pb := pos[a], pos[b]
		if len(pa) == 0 || len(pb) == 0 {
			continue
		}
		gap := s.groups[b].Pos - s.groups[a].Pos
		if gap <= 0 {
			gap = 1
		}
		tpi := 0.0
		j := 0
		for _, x := range pa {
			for j < len(pb) && int(pb[j]) < int(x)-proxWindow {
				j++
			}
			bestD := proxWindow + 1
			for m := j; m < len(pb) && int(pb[m]) <= int(x)+proxWindow; m++ {
				d := int(pb[m]) - int(x) - gap
				if d < 0 {
					d = -d
				}
				bestD = min(bestD, d)
			}
			if bestD <= proxWindow {
				tpi += 1 / float64((1+bestD)*(1+bestD))
			}
		}
		if tpi > 0 {
			total += min(s.idf[a], s.idf[b]) * sat(tpi, s.p.K1)
		}
	}
	return total
}

// phrased reports whether a chunk holds every quoted phrase of the query.
func (s *searcher) phrased(pos [][]uint32) bool {
	phrases := map[int][]int{}
	for g, gr := range s.groups {
		if gr.Phrase > 0 {
			phrases[gr.Phrase] = append(phrases[gr.Phrase], g)
		}
	}
	for _, gs := range phrases {
		slices.SortFunc(gs, func(a, b int) int { return s.groups[a].Pos - s.groups[b].Pos })
		found := false
		for _, x := range pos[gs[0]] {
			ok := true
			for _, g := range gs[1:] {
				want := int(x) + s.groups[g].Pos - s.groups[gs[0]].Pos
				if want < 0 || !containsPos(pos[g], uint32(want)) {
					ok = false
					break
				}
			}
			if ok {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func containsPos(ps []uint32, x uint32) bool {
	_, ok := slices.BinarySearch(ps, x)
	return ok
}
