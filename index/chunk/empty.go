package chunk

// fixEmpty makes sure no piece is without substance (a tags line, an image,
// a rule split off by packing): such a piece joins the previous piece if
// both fit in one, else the next; failing that it takes the last sentences
// (or words) of the previous piece, else the first of the next; failing
// that too it is dropped: it holds nothing to search (nor do pieces that
// are all without substance, such as the fragments of a heading too long
// for one parent). The first piece may hold first bytes, the others rest.
// ps is modified in place and returned.
func fixEmpty(src []byte, ps []span, first, rest int, m *substance) []span {
	subst := m.count
	empty := 0
	for _, p := range ps {
		if subst(p.s, p.e) == 0 {
			empty++
		}
	}
	if empty == 0 {
		return ps
	}
	if empty == len(ps) {
		return ps[:0]
	}
	limit := func(i int) int {
		if i == 0 {
			return first
		}
		return rest
	}
	out := ps[:0]
	for i := 0; i < len(ps); i++ {
		p := ps[i]
		if subst(p.s, p.e) > 0 {
			out = append(out, p)
			continue
		}
		n := len(out)
		if n > 0 && p.e-out[n-1].s <= limit(n-1) {
			out[n-1].e, out[n-1].lines = p.e, out[n-1].lines && p.lines
			continue
		}
		if i+1 < len(ps) && ps[i+1].e-p.s <= limit(n) {
			ps[i+1].s, ps[i+1].lines = p.s, ps[i+1].lines && p.lines
			continue
		}
		if n > 0 {
			if c := tailStart(src, out[n-1], p.e, p.e-limit(n), subst); c > 0 {
				_, out[n-1].e = trim(src, out[n-1].s, c)
				out = append(out, span{c, p.e, false})
				continue
			}
		}
		if i+1 < len(ps) {
			if c := headEnd(src, p.s, ps[i+1], p.s+limit(n), subst); c > 0 {
				out = append(out, span{p.s, c, false})
				ps[i+1].s = skipSpace(src, c, ps[i+1].e)
				continue
			}
		}
		// Nothing within reach: the piece is dropped.
	}
	return out
}

// tailStart returns where to start a piece ending at end that takes the
// end of prev: the latest line or sentence start, else word start, else
// rune start c with c >= lo such that both src[prev.s:c] and src[c:end]
// have substance; 0 if there is none.
func tailStart(src []byte, prev span, end, lo int, subst func(s, e int) int) int {
	lo = max(lo, prev.s+1)
	for pass := 0; pass < 3; pass++ {
		for c := prev.e - 1; c >= lo; c-- {
			if !startClass(src, c, pass) {
				continue
			}
			if subst(c, end) > 0 {
				if subst(prev.s, c) > 0 {
					return c
				}
				break // earlier starts leave even less before them
			}
		}
	}
	return 0
}

// headEnd returns where to end a piece starting at start that takes the
// start of next: the earliest line or sentence end, else word end, else
// rune boundary c with c <= hi such that both src[start:c] and
// src[c:next.e] have substance; 0 if there is none.
func headEnd(src []byte, start int, next span, hi int, subst func(s, e int) int) int {
	hi = min(hi, next.e-1)
	for pass := 0; pass < 3; pass++ {
		for c := next.s + 1; c <= hi; c++ {
			if !endClass(src, c, pass) {
				continue
			}
			if subst(start, c) > 0 {
				if subst(skipSpace(src, c, next.e), next.e) > 0 {
					return c
				}
				break
			}
		}
	}
	return 0
}

// startClass reports whether a piece may start at src[c] in the given pass:
// 0 line or sentence starts, 1 word starts, 2 any rune start that is not
// whitespace.
func startClass(src []byte, c, pass int) bool {
	if isSpace(src[c]) || c == 0 {
		return false
	}
	switch pass {
	case 0:
		return isSpace(src[c-1]) && (lineFirst(src, c) || sentenceStart(src, c)) || cjkStop(src, c)
	case 1:
		return isSpace(src[c-1])
	}
	return runeStart(src[c])
}

// endClass reports whether a piece may end just before src[c] in the given
// pass: 0 at a line break or sentence end, 1 at whitespace, 2 at any rune
// boundary after a non-space byte.
func endClass(src []byte, c, pass int) bool {
	if c >= len(src) || isSpace(src[c-1]) {
		return false
	}
	switch pass {
	case 0:
		return src[c] == '\n' || src[c] == '\r' || isSpace(src[c]) && sentenceEnd(src, c) || cjkStop(src, c)
	case 1:
		return isSpace(src[c])
	}
	return runeStart(src[c])
}

func runeStart(b byte) bool { return b&0xC0 != 0x80 }
