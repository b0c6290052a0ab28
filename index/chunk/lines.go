package chunk

import "bytes"

// lineIndex maps byte offsets to 1-based line numbers. Lines are terminated
// by '\n' only (a "\r\n" pair is therefore one line break, and a lone '\r' is
// not a break, exactly like goldmark and grep).
type lineIndex struct {
	starts []int // starts[i] is the byte offset of line i+1
	n      int   // len(src)
}

// newLineIndex indexes the lines of src, appending to starts (an empty
// buffer to reuse, or nil).
func newLineIndex(src []byte, starts []int) lineIndex {
	starts = append(starts[:0], 0)
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	return lineIndex{starts: starts, n: len(src)}
}

// line returns the 0-based line index containing byte offset off.
func (li *lineIndex) line(off int) int {
	lo, hi := 0, len(li.starts)
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if li.starts[m] <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// lineStart returns the byte offset of 0-based line l.
func (li *lineIndex) lineStart(l int) int {
	if l >= len(li.starts) {
		return li.n
	}
	return li.starts[l]
}

// lineEnd returns the byte offset just past 0-based line l (including its
// line break).
func (li *lineIndex) lineEnd(l int) int { return li.lineStart(l + 1) }

// count returns the number of lines.
func (li *lineIndex) count() int { return len(li.starts) }

// span builds a Span for the byte range [s, e) with e > s.
func (li *lineIndex) span(s, e int) Span {
	return Span{Start: s, End: e, LineStart: li.line(s) + 1, LineEnd: li.line(e-1) + 1}
}

// isSpace reports whether b is a space, tab or line break: the characters
// CommonMark (and goldmark) treat as blank. Other control characters such as
// '\v' and '\f' are content.
func isSpace(b byte) bool {
	switch b {
	case ' ', '\t', '\n', '\r':
		return true
	}
	return false
}

// trim shrinks [s, e) so it neither starts nor ends with whitespace. The
// result is empty (s >= e) if the range is whitespace only.
func trim(src []byte, s, e int) (int, int) {
	for s < e && isSpace(src[s]) {
		s++
	}
	for e > s && isSpace(src[e-1]) {
		e--
	}
	return s, e
}

// isBlank reports whether b is whitespace only.
func isBlank(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return false
		}
	}
	return true
}

// skipSpace returns the first offset >= i that is not whitespace (or e).
func skipSpace(src []byte, i, e int) int {
	for i < e && isSpace(src[i]) {
		i++
	}
	return i
}
