package snippet

import (
	"strings"
	"unicode/utf8"
)

// measure converts between byte offsets and widths, in bytes or runes.
type measure struct {
	text  string
	runes []int32 // runes[x]: runes in text[:x], when measuring runes
}

func newMeasure(text string, runes bool) measure {
	m := measure{text: text}
	if runes && !ascii(text) { // in ASCII a rune is a byte
		m.runes = make([]int32, len(text)+1)
		n := int32(0)
		for i := 0; i < len(text); i++ {
			if utf8.RuneStart(text[i]) {
				n++
			}
			m.runes[i+1] = n
		}
	}
	return m
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// dist is the width of text[a:b].
func (m measure) dist(a, b int) int {
	if m.runes != nil {
		return int(m.runes[b] - m.runes[a])
	}
	return b - a
}

// advance returns the furthest rune boundary e >= s with dist(s, e) <= w.
func (m measure) advance(s, w int) int {
	t := m.text
	if m.runes == nil {
		e := min(len(t), s+w)
		for e > s && e < len(t) && !utf8.RuneStart(t[e]) {
			e--
		}
		return e
	}
	e := s
	for n := 0; e < len(t) && n < w; n++ {
		_, size := utf8.DecodeRuneInString(t[e:])
		e += size
	}
	return e
}

// back returns the earliest rune boundary s <= e with dist(s, e) <= w.
func (m measure) back(e, w int) int {
	t := m.text
	if m.runes == nil {
		s := max(0, e-w)
		for s < e && !utf8.RuneStart(t[s]) {
			s++
		}
		return s
	}
	s := e
	for n := 0; s > 0 && n < w; n++ {
		_, size := utf8.DecodeLastRuneInString(t[:s])
		s -= size
	}
	return s
}

// inWord reports whether offset p (a rune boundary) is inside a word: the
// runes on both sides of it are word runes.
func inWord(t string, p int) bool {
	if p <= 0 || p >= len(t) {
		return false
	}
	a, _ := utf8.DecodeLastRuneInString(t[:p])
	b, _ := utf8.DecodeRuneInString(t[p:])
	return isWordRune(a) && isWordRune(b)
}

// wordStart moves p (a rune boundary) forward out of the word it cuts,
// stopping at limit.
func wordStart(t string, p, limit int) int {
	for p < limit && inWord(t, p) {
		_, size := utf8.DecodeRuneInString(t[p:])
		p += size
	}
	return p
}

// wordEnd moves e (a rune boundary) back out of the word it cuts, but not
// below keep (nor floor); if the word starts at or before floor (one word
// longer than the window), e stays where it is.
func wordEnd(t string, floor, e, keep int) int {
	keep = max(keep, floor)
	x := e
	for x > keep && inWord(t, x) {
		_, size := utf8.DecodeLastRuneInString(t[:x])
		x -= size
	}
	if x <= floor && e > floor {
		return e
	}
	return x
}

func skipSpaceFwd(t string, i, e int) int {
	for i < e && isSpace(t[i]) {
		i++
	}
	return i
}

func trimSpace(t string, s, e int) (int, int) {
	s = skipSpaceFwd(t, s, e)
	for e > s && isSpace(t[e-1]) {
		e--
	}
	return s, e
}

// lineStart reports whether t[p] is the first non-blank byte of its line.
func lineStart(t string, p int) bool {
	q := p - 1
	for q >= 0 && (t[q] == ' ' || t[q] == '\t') {
		q--
	}
	return q < 0 || t[q] == '\n'
}

// sentenceStart reports whether t[p] starts a sentence: it follows
// whitespace after '.', '!' or '?' (possibly closed by a quote or
// bracket), or an ideographic full stop.
func sentenceStart(t string, p int) bool {
	if cjkStop(t, p) {
		return true
	}
	q := p
	for q > 0 && isSpace(t[q-1]) {
		q--
	}
	if q == p || q == 0 {
		return false
	}
	c := t[q-1]
	if (c == '"' || c == '\'' || c == ')' || c == ']' || c == '*' || c == '_') && q > 1 {
		c = t[q-2]
	}
	return c == '.' || c == '!' || c == '?'
}

// cjkStop reports whether t[:p] ends with an ideographic full stop or a
// full-width '!' or '?'.
func cjkStop(t string, p int) bool {
	return p >= 3 && t[p-3] >= utf8.RuneSelf &&
		(strings.HasSuffix(t[:p], "。") || strings.HasSuffix(t[:p], "！") || strings.HasSuffix(t[:p], "？"))
}

func countNL(s string) int { return strings.Count(s, "\n") }
