package chunk

import "unicode/utf8"

// span is a trimmed, non-empty byte range [s, e) of the source. lines marks
// text that is split at line boundaries rather than sentences (code, tables).
type span struct {
	s, e  int
	lines bool
}

// block is a top-level block of the body: a heading or a content block
// (paragraph, list, fenced code, table, blockquote, ...), trimmed.
type block struct {
	span
	heading bool
	level   int    // heading level 1-6
	title   string // plain heading text
	// subs are the start offsets of the block's natural parts after the
	// first (list items, blockquote children); a block too large for a
	// chunk is packed part by part before anything is split inside a part.
	subs []int
}

// builder assembles parents and children from blocks.
type builder struct {
	doc    *Document
	src    []byte
	li     *lineIndex
	opt    Options
	units  []span // scratch: parent units of a section
	cu     []span // scratch: child units of a parent
	pieces []span // scratch: primary child ranges of a parent
}

// sections groups blocks into sections (an optional heading followed by the
// content blocks up to the next heading) and emits their parents and children.
func (b *builder) sections(blocks []block) {
	type level struct {
		n     int
		title string
	}
	var stack []level
	for i := 0; i < len(blocks); {
		var head *block
		var path []string
		if blocks[i].heading {
			head = &blocks[i]
			for len(stack) > 0 && stack[len(stack)-1].n >= head.level {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, level{head.level, head.title})
			path = make([]string, len(stack))
			for k, l := range stack {
				path[k] = l.title
			}
			i++
		}
		j := i
		for j < len(blocks) && !blocks[j].heading {
			j++
		}
		b.section(head, blocks[i:j], path)
		i = j
	}
}

// unitsOf appends blk clipped to [cs, ce) as packing units: the whole block,
// or its parts if the block is longer than limit.
func (b *builder) unitsOf(dst []span, blk *block, cs, ce, limit int) []span {
	if len(blk.subs) == 0 || blk.e-blk.s <= limit {
		if s, e := trim(b.src, max(blk.s, cs), min(blk.e, ce)); s < e {
			dst = append(dst, span{s, e, blk.lines})
		}
		return dst
	}
	for i := -1; i < len(blk.subs); i++ {
		ps, pe := blk.s, blk.e
		if i >= 0 {
			ps = blk.subs[i]
		}
		if i+1 < len(blk.subs) {
			pe = blk.subs[i+1]
		}
		if s, e := trim(b.src, max(ps, cs), min(pe, ce)); s < e {
			dst = append(dst, span{s, e, blk.lines})
		}
	}
	return dst
}

// section emits the parents and children of one section.
func (b *builder) section(head *block, content []block, path []string) {
	o := b.opt
	units := b.units[:0]
	for i := range content {
		units = b.unitsOf(units, &content[i], 0, len(b.src), o.ParentChars)
	}
	if head != nil {
		if len(units) > 0 {
			// The heading is glued to the first unit so a parent never
			// consists of a bare heading when there is content.
			units[0].s = head.s
		} else {
			units = append(units, head.span)
		}
	}
	if len(units) == 0 {
		return
	}
	parents := pack(b.src, units, o.ParentChars, o.ParentChars, o.ParentChars, nil)
	b.units = units

	k := 0 // first content block that may intersect the current parent
	for _, ps := range parents {
		pi := len(b.doc.Parents)
		b.doc.Parents = append(b.doc.Parents, Parent{Span: b.li.span(ps.s, ps.e), Heading: path})

		// Child units: content blocks clipped to the parent. The heading is
		// excluded when the parent holds all of it (it travels in Heading);
		// a fragment of an over-long heading is kept as content.
		cu := b.cu[:0]
		if head != nil && head.s < ps.e && head.e > ps.s && (head.s < ps.s || head.e > ps.e) {
			if s, e := trim(b.src, max(head.s, ps.s), min(head.e, ps.e)); s < e {
				cu = append(cu, span{s, e, false})
			}
		}
		for k < len(content) && content[k].e <= ps.s {
			k++
		}
		for i := k; i < len(content) && content[i].s < ps.e; i++ {
			cu = b.unitsOf(cu, &content[i], ps.s, ps.e, o.ChildChars)
		}
		if len(cu) == 0 { // heading-only section (or a parent holding only heading text)
			cu = append(cu, ps)
		}
		rest := o.ChildChars - o.ChildOverlap
		b.pieces = pack(b.src, cu, o.ChildChars, rest, o.ChildChars, b.pieces[:0])
		b.cu = cu
		b.emitChildren(pi, path)
	}
}

// emitChildren turns b.pieces into overlapping chunks of parent pi.
func (b *builder) emitChildren(pi int, path []string) {
	o := b.opt
	prevStart := -1
	for i, p := range b.pieces {
		start := p.s
		if i > 0 && o.ChildOverlap > 0 {
			start = overlapStart(b.src, prevStart, b.pieces[i-1].e, p, o.ChildOverlap, o.ChildChars)
		}
		b.doc.Chunks = append(b.doc.Chunks, Chunk{
			Span:    b.li.span(start, p.e),
			Parent:  pi,
			Heading: path,
			Text:    string(b.src[start:p.e]),
		})
		prevStart = start
	}
}

// pack partitions units (ordered, disjoint, trimmed) into pieces. The first
// piece holds at most first bytes, the following ones at most rest bytes.
// Consecutive whole units are packed together; a unit is only split when it
// does not fit and is longer than hard bytes (a unit of up to hard bytes
// becomes a piece of its own instead). When the unit after a piece must be
// split, its head fills the rest of that piece. out is appended to and
// returned.
func pack(src []byte, units []span, first, rest, hard int, out []span) []span {
	if len(units) == 0 {
		return out
	}
	n0 := len(out)
	k, pos := 0, units[0].s
	for k < len(units) {
		limit := rest
		if len(out) == n0 {
			limit = first
		}
		u := units[k]
		if u.e-pos > limit {
			if u.e-pos <= hard {
				out = append(out, span{pos, u.e, u.lines})
			} else {
				cut, _ := bestCut(src, pos, pos, pos+limit, u.lines)
				_, e := trim(src, pos, cut)
				out = append(out, span{pos, e, u.lines})
				pos = skipSpace(src, cut, u.e)
				continue
			}
			k++
		} else {
			e := u.e
			for k++; k < len(units) && units[k].e-pos <= limit; k++ {
				e = units[k].e
			}
			if k < len(units) && units[k].e-units[k].s > hard {
				// The next unit must be split anyway: fill the rest of
				// this piece with its head rather than leave it short.
				if room := pos + limit - units[k].s; room >= max(limit/4, 4) {
					cut, cls := bestCut(src, pos, units[k].s, pos+limit, units[k].lines)
					if cls <= cutLine && cut-pos >= limit/2 {
						_, ce := trim(src, units[k].s, cut)
						out = append(out, span{pos, ce, false})
						pos = skipSpace(src, cut, units[k].e)
						continue
					}
				}
			}
			out = append(out, span{pos, e, false})
		}
		if k < len(units) {
			pos = units[k].s
		}
	}
	return out
}

// Cut classes for bestCut, best first.
const (
	cutPara = iota
	cutSentence
	cutLine
	cutSpace
	numCuts
	cutRune = numCuts
)

// bestCut returns where to end a piece that starts at ps when the cut must
// fall in (s, limit], with ps <= s < limit < len(src), src[s] not
// whitespace and src[s:limit] inside one unit. It also returns the class of
// the cut (cutRune for a bare rune boundary). Preference, with the window
// measured from ps: the latest paragraph break, else sentence end, else line
// break in the upper half; else the latest of those in the third quarter;
// else the latest whitespace in the upper half; else the later of any
// whitespace or clean boundary; else the latest rune boundary.
func bestCut(src []byte, ps, s, limit int, lines bool) (int, int) {
	mid := ps + (limit-ps)/2
	quarter := ps + (limit-ps)/4
	var upper [numCuts]int // latest cut of each class at or above mid
	lowGood, lowSpace := 0, 0
	for c := limit; c > s; c-- {
		cls := cutClass(src, c, lines)
		if cls < 0 {
			continue
		}
		if c >= mid {
			if upper[cls] == 0 {
				upper[cls] = c
			}
			if cls == cutPara {
				return c, cls
			}
			continue
		}
		for k := cutPara; k <= cutLine; k++ {
			if upper[k] > 0 {
				return upper[k], k
			}
		}
		if cls <= cutLine {
			if c >= quarter {
				return c, cls
			}
			if lowGood == 0 {
				lowGood = c
			}
		} else if lowSpace == 0 {
			lowSpace = c
		}
		if lowGood > 0 && lowSpace > 0 {
			break
		}
	}
	for k := cutPara; k <= cutLine; k++ {
		if upper[k] > 0 {
			return upper[k], k
		}
	}
	if upper[cutSpace] > 0 {
		return upper[cutSpace], cutSpace
	}
	if lowGood > 0 || lowSpace > 0 {
		if lowGood > lowSpace {
			return lowGood, cutSentence
		}
		return lowSpace, cutSpace
	}
	for c := limit; c > s; c-- {
		if utf8.RuneStart(src[c]) {
			return c, cutRune
		}
	}
	return limit, cutRune // unreachable for valid UTF-8 and limit-s >= 4
}

// cutClass classifies ending a piece just before src[c] (0 < c < len(src)).
// In lines mode sentence ends are not boundaries.
func cutClass(src []byte, c int, lines bool) int {
	ch := src[c]
	if isSpace(ch) {
		if !lines && sentenceEnd(src, c) {
			if ch == '\n' || ch == '\r' {
				if blankLineFollows(src, c) {
					return cutPara
				}
			}
			return cutSentence
		}
		if ch == '\n' || ch == '\r' {
			if blankLineFollows(src, c) {
				return cutPara
			}
			return cutLine
		}
		return cutSpace
	}
	if !lines && cjkStop(src, c) {
		return cutSentence
	}
	return -1
}

// sentenceEnd reports whether src[:c] ends with '.', '!' or '?', possibly
// followed by a closing quote or bracket.
func sentenceEnd(src []byte, c int) bool {
	i := c - 1
	if i >= 0 {
		switch src[i] {
		case '"', '\'', ')', ']', '*', '_':
			i--
		}
	}
	if i < 0 {
		return false
	}
	switch src[i] {
	case '.', '!', '?':
		return true
	}
	return cjkStop(src, i+1)
}

// cjkStop reports whether src[:c] ends with an ideographic full stop or a
// full-width '!' or '?'.
func cjkStop(src []byte, c int) bool {
	if c < 3 {
		return false
	}
	a, b, d := src[c-3], src[c-2], src[c-1]
	return (a == 0xE3 && b == 0x80 && d == 0x82) || // 。
		(a == 0xEF && b == 0xBC && (d == 0x81 || d == 0x9F)) // ！ ？
}

// blankLineFollows reports whether the line break at src[c] is followed by a
// whitespace-only line.
func blankLineFollows(src []byte, c int) bool {
	if src[c] == '\r' {
		c++
		if c >= len(src) || src[c] != '\n' {
			return false
		}
	}
	for i := c + 1; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t', '\r':
		case '\n':
			return true
		default:
			return false
		}
	}
	return true
}

// overlapStart picks where chunk cur (primary range) really starts so that it
// overlaps the previous chunk [prevStart, prevEnd) by up to ov bytes: the
// earliest line or sentence start in the window, else the earliest word
// start, else no overlap. The overlap never exceeds half of either chunk and
// the chunk never exceeds limit bytes.
func overlapStart(src []byte, prevStart, prevEnd int, cur span, ov, limit int) int {
	ov = min(ov, (prevEnd-prevStart)/2)
	lo := max(prevEnd-ov, cur.e-limit, 2*prevEnd-cur.e, prevStart+1)
	hi := min(prevEnd, cur.s)
	word := -1
	for p := lo; p < hi; p++ {
		ch := src[p]
		if isSpace(ch) || !utf8.RuneStart(ch) {
			continue
		}
		if lineFirst(src, p) || sentenceStart(src, p) {
			return p
		}
		if word < 0 && isSpace(src[p-1]) {
			word = p
		}
	}
	if word >= 0 {
		return word
	}
	return cur.s
}

// lineFirst reports whether src[p] is the first non-blank byte of its line.
func lineFirst(src []byte, p int) bool {
	q := p - 1
	for q >= 0 && (src[q] == ' ' || src[q] == '\t') {
		q--
	}
	return q < 0 || src[q] == '\n'
}

// sentenceStart reports whether src[p] starts a sentence: it follows
// whitespace preceded by sentence punctuation, or a CJK full stop.
func sentenceStart(src []byte, p int) bool {
	if cjkStop(src, p) {
		return true
	}
	q := p
	for q > 0 && isSpace(src[q-1]) {
		q--
	}
	return q < p && q > 0 && sentenceEnd(src, q)
}
