package segment

import "math/bits"

// scoreSegmentTAAT scores segment k's notes word by word (term at a time:
// each word's postings in one pass, evidence gathered per chunk, then per
// note) and pushes the best into h (at most depth notes kept). It is the
// scorer the streaming one (stream.go) replaced, kept as the tests' second
// opinion: an independent way to the same scores.
func (s *searcher) scoreSegmentTAAT(k, depth int, h *hitHeap) {
	ss := s.v.segs[k]
	seg := ss.seg
	p := s.p
	G := len(s.groups)
	sc := s.scratch(k)
	if len(sc.xi) < len(sc.acc) {
		sc.xi = make([]int32, len(sc.acc))
	}

	// Note fields and anchor text.
	s.looseFields(k, sc)

	// Chunk fields.
	k1 := p.K1
	for g := range s.groups {
		idf := s.idf[g]
		if idf == 0 {
			continue
		}
		var it multiIter
		it.init(seg, s.ents[k][g], nil)
		for it.next() {
			c := it.chunk
			if c >= seg.chunks {
				break
			}
			r := seg.chunkRow(c)
			n := le.Uint32(r[crNote:])
			if n >= seg.notes || ss.deleted(n) {
				continue
			}
			bc := s.norm(r)
			x0 := 0.0
			if sl := sc.slot[n]; sl != 0 {
				i := int(sl-1)*G + g
				x0 = float64(sc.tv[i])/bc + float64(sc.rv[i])
			}
			x := (p.Body*float64(it.body) + p.Heading*float64(it.head)) / bc
			if sc.mask[c] == 0 {
				sc.touched = append(sc.touched, c)
				sc.xi[c] = int32(len(sc.xr)/G + 1)
				sc.xr = append(sc.xr, make([]float32, G)...)
			}
			sc.xr[int(sc.xi[c]-1)*G+g] = float32(p.Body*float64(it.body) + p.Heading*float64(it.head))
			sc.acc[c] += float32(idf * (sat(x0+x, k1) - sat(x0, k1)))
			sc.mask[c] |= 1 << g
		}
	}

	// Notes: the best chunk, with a share of the note's other chunks.
	for _, c := range sc.touched {
		r := seg.chunkRow(c)
		n := le.Uint32(r[crNote:])
		score := sc.acc[c] + float32(s.base(sc, n, r))
		var a *noteAgg
		if i := sc.agg[n]; i != 0 {
			a = &sc.aggs[i-1]
		} else {
			sc.aggs = append(sc.aggs, noteAgg{note: n, best: c, bestScore: -1})
			sc.agg[n] = int32(len(sc.aggs))
			a = &sc.aggs[len(sc.aggs)-1]
			for range G {
				sc.rt = append(sc.rt, 0)
			}
		}
		raw := sc.xr[int(sc.xi[c]-1)*G:][:G]
		rsum := sc.rt[int(sc.agg[n]-1)*G:][:G]
		for g, x := range raw {
			rsum[g] += x
		}
		a.mask |= sc.mask[c]
		if score > a.bestScore || score == a.bestScore && c < a.best {
			a.best, a.bestScore = c, score
		}
	}
	for _, n := range sc.notes {
		if sc.agg[n] != 0 {
			continue
		}
		first, cnt := seg.NoteChunks(n)
		if cnt == 0 {
			continue
		}
		score := float32(s.base(sc, n, seg.chunkRow(first)))
		sc.aggs = append(sc.aggs, noteAgg{note: n, best: first, bestScore: score})
		sc.agg[n] = int32(len(sc.aggs))
		for range G {
			sc.rt = append(sc.rt, 0)
		}
	}
	// A note's whole-note BM25F is at most the saturated idf of the words
	// it holds, so a note whose best chunk plus that bound cannot enter
	// the full heap is not scored further; nor one whose bound stays under
	// the floor the heap's weakest score will reach (floor).
	floor := s.floor(sc, h, depth)
	var allowed map[uint32]bool
	for _, a := range sc.aggs {
		if floor > 0 || h.Len() == depth && s.p.NoteBM25 > 0 {
			mask := a.mask
			if sl := sc.slot[a.note]; sl != 0 {
				mask |= sc.nmask[sl-1]
			}
			ub := float64(a.bestScore) + s.p.NoteBM25*s.maxOf(mask)
			if ub < floor || h.Len() == depth && s.p.NoteBM25 > 0 && ub < (*h)[0].Score {
				continue
			}
		}
		id := seg.NoteID(a.note)
		score := s.noteScore(sc, seg, a.note, float64(a.bestScore))
		if score <= 0 {
			continue
		}
		if h.Len() == depth && !h.beats(score, id) {
			continue
		}
		if s.q.Filter != nil {
			if allowed == nil {
				allowed = make(map[uint32]bool)
			}
			ok, seen := allowed[a.note]
			if !seen {
				vault, path := seg.NoteVaultPath(a.note)
				ok = s.q.Filter(vault, path)
				allowed[a.note] = ok
			}
			if !ok {
				continue
			}
		}
		mask := a.mask
		if sl := sc.slot[a.note]; sl != 0 {
			mask |= sc.nmask[sl-1]
		}
		hit := cand{Score: score, ID: id, ref: Ref{k, a.note}, best: a.best, bestScore: a.bestScore, matched: int32(bits.OnesCount32(mask))}
		if h.Len() == depth {
			h.replaceMin(hit) // it beats the weakest, which leaves
		} else {
			h.push(hit)
		}
	}
}

// floor returns the depth-th best of the scores in h and of the scores of
// the notes' best chunks in sc (0 when there are fewer). A note scores at
// least its best chunk (the whole note's share is not negative), and a
// note scoring above 0 enters the heap unless depth better ones are
// there, so the heap's weakest score ends at the floor or above: a note
// whose bound stays under it cannot enter. With a filter, which may keep
// notes out of the heap, there is no floor.
func (s *searcher) floor(sc *scratch, h *hitHeap, depth int) float64 {
	if s.q.Filter != nil || s.p.NoteBM25 < 0 || h.Len()+len(sc.aggs) <= depth {
		return 0
	}
	var top []float64 // a min-heap of the depth best
	add := func(x float64) {
		if x <= 0 {
			return
		}
		if len(top) < depth {
			top = append(top, x)
			for j := len(top) - 1; j > 0; {
				i := (j - 1) / 2
				if top[i] <= top[j] {
					break
				}
				top[i], top[j] = top[j], top[i]
				j = i
			}
			return
		}
		if x <= top[0] {
			return
		}
		top[0] = x
		for i := 0; ; {
			j := 2*i + 1
			if j >= len(top) {
				break
			}
			if r := j + 1; r < len(top) && top[r] < top[j] {
				j = r
			}
			if top[i] <= top[j] {
				break
			}
			top[i], top[j] = top[j], top[i]
			i = j
		}
	}
	for _, x := range *h {
		add(x.Score)
	}
	for _, a := range sc.aggs {
		add(float64(a.bestScore))
	}
	if len(top) < depth {
		return 0
	}
	return top[0]
}
