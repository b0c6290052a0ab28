package chunk

import "unicode/utf8"

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
// break in the upper half; else the latest of those in the second quarter;
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
// earliest line start in the window, else the earliest sentence start, else
// the earliest word start, else no overlap. The overlap never exceeds half
// of either chunk and the chunk never exceeds limit bytes.
func overlapStart(src []byte, prevStart, prevEnd int, cur span, ov, limit int) int {
	ov = min(ov, (prevEnd-prevStart)/2)
	lo := max(prevEnd-ov, cur.e-limit, 2*prevEnd-cur.e, prevStart+1)
	hi := min(prevEnd, cur.s)
	sentence, word := -1, -1
	for p := lo; p < hi; p++ {
		ch := src[p]
		if isSpace(ch) || !utf8.RuneStart(ch) {
			continue
		}
		if lineFirst(src, p) {
			return p
		}
		if sentence < 0 && sentenceStart(src, p) {
			sentence = p
		}
		if word < 0 && isSpace(src[p-1]) {
			word = p
		}
	}
	if sentence >= 0 {
		return sentence
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
