package analyze

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// pieceKind is what scan found.
type pieceKind uint8

const (
	pieceWord pieceKind = iota // a word token: its bytes, ASCII letters lower-cased
	pieceGram                  // a CJK bigram (or a lone character), NFKC-normalised
	pieceDrop                  // an over-long token: no term, but it takes a position
)

// scanner cuts text into pieces, each one position. A word is a maximal
// run of letters, digits and combining marks outside CJK; an apostrophe
// inside a word is skipped ("don't" → "dont"). A maximal run of CJK
// characters (Han, Hiragana, Katakana with the prolonged sound mark,
// Hangul) yields its overlapping bigrams, or the character itself when it
// stands alone; characters are compared after NFKC, so half-width katakana
// and compatibility ideographs match their usual forms.
//
// It is a pull iterator rather than a callback so that the token buffer
// stays on the caller's stack: analysing known ASCII words allocates
// nothing.
type scanner struct {
	text string
	i    int // where the next word scan starts
	wbuf [maxTokenBytes]byte

	// The CJK run in progress: characters [p, runEnd) are still to read.
	inRun             bool
	runStart, runEnd  int
	p                 int
	prev              string // the previous character, normalised
	prevStart, nchars int
	gbuf              [32]byte
}

func newScanner(text string) scanner { return scanner{text: text} }

// next returns the next piece: its kind, its bytes (a word with ASCII
// letters lower-cased, or a normalised gram; valid until the next call) and
// the byte range [start, end) of its source. ok is false at the end.
func (s *scanner) next() (k pieceKind, tok []byte, start, end int, ok bool) {
	if s.inRun {
		if k, tok, start, end, ok = s.gram(); ok {
			return k, tok, start, end, ok
		}
	}
	text := s.text
	n, long := 0, false
	start = -1
	i := s.i
	for i < len(text) {
		c := text[i]
		if c < utf8.RuneSelf {
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			case 'A' <= c && c <= 'Z':
				c += 'a' - 'A'
			case c == '\'' && start >= 0 && i+1 < len(text) && isWordByte(text[i+1]):
				i++ // inner apostrophe: skip it, keep the word together
				continue
			default:
				i++
				if start >= 0 {
					s.i = i
					return s.word(n, long, start, end)
				}
				continue
			}
			if start < 0 {
				start = i
			}
			if n < maxTokenBytes {
				s.wbuf[n] = c
				n++
			} else {
				long = true
			}
			i++
			end = i
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == '’' && start >= 0 && i+size < len(text) && isWordByte(text[i+size]):
			i += size
		case isCJK(r):
			if start >= 0 {
				s.i = i
				return s.word(n, long, start, end)
			}
			s.startRun(i)
			return s.gram()
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r):
			if start < 0 {
				start = i
			}
			if n+size <= maxTokenBytes {
				n += copy(s.wbuf[n:], text[i:i+size])
			} else {
				long = true
			}
			i += size
			end = i
		default:
			i += size
			if start >= 0 {
				s.i = i
				return s.word(n, long, start, end)
			}
		}
	}
	s.i = i
	if start >= 0 {
		return s.word(n, long, start, end)
	}
	return 0, nil, 0, 0, false
}

func (s *scanner) word(n int, long bool, start, end int) (pieceKind, []byte, int, int, bool) {
	if long {
		return pieceDrop, nil, start, end, true
	}
	return pieceWord, s.wbuf[:n], start, end, true
}

// startRun begins the CJK run at text[i]. A run continues over combining
// marks (a voicing mark written separately).
func (s *scanner) startRun(i int) {
	j := i
	for j < len(s.text) {
		r, size := utf8.DecodeRuneInString(s.text[j:])
		if !isCJK(r) && (j == i || !unicode.IsMark(r)) {
			break
		}
		j += size
	}
	s.inRun, s.runStart, s.runEnd, s.p, s.nchars = true, i, j, i, 0
}

// gram returns the next bigram of the run in progress, or its only
// character; ok is false when the run is done. A character is an NFKC
// segment with the marks that follow it, so "ｶﾞ" is one character, ガ.
func (s *scanner) gram() (k pieceKind, tok []byte, start, end int, ok bool) {
	text, j := s.text, s.runEnd
	for s.p < j {
		p := s.p
		r, size := utf8.DecodeRuneInString(text[p:j])
		q := p + size
		var ch string
		if simpleCJK(r) && (q == j || nextSimple(text[q:j])) {
			ch = text[p:q]
		} else {
			if k := norm.NFKC.NextBoundaryInString(text[p:j], true); k > size {
				q = p + k
			}
			for q < j { // marks stay with the character they follow
				r, size := utf8.DecodeRuneInString(text[q:j])
				if !unicode.IsMark(r) {
					break
				}
				q += size
			}
			ch = norm.NFKC.String(text[p:q])
		}
		s.p = q
		s.nchars++
		prev, prevStart := s.prev, s.prevStart
		s.prev, s.prevStart = ch, p
		if s.nchars > 1 {
			return pieceGram, append(append(s.gbuf[:0], prev...), ch...), prevStart, q, true
		}
	}
	s.inRun = false
	s.i = j
	if s.nchars == 1 {
		return pieceGram, append(s.gbuf[:0], s.prev...), s.runStart, j, true
	}
	return 0, nil, 0, 0, false
}

// nextSimple reports whether s starts with a character that cannot combine
// with the one before it under NFKC.
func nextSimple(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return simpleCJK(r)
}

// simpleCJK reports whether r is a common CJK character that NFKC leaves
// alone and that never composes with its neighbours: unified ideographs
// (and extension A), kana without separate voicing marks, the prolonged
// sound mark and precomposed Hangul syllables.
func simpleCJK(r rune) bool {
	return 0x4E00 <= r && r <= 0x9FFF || 0x3400 <= r && r <= 0x4DBF ||
		0x3041 <= r && r <= 0x3096 || 0x30A1 <= r && r <= 0x30FA || r == 0x30FC ||
		0xAC00 <= r && r <= 0xD7A3
}

// isCJK reports whether r belongs in a CJK run: a letter of the Han,
// Hiragana, Katakana or Hangul scripts (including the iteration marks), the
// prolonged sound mark ー (full and half width), the half-width voicing
// marks and the ideographic zero 〇.
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	if simpleCJK(r) {
		return true
	}
	switch r {
	case 0xFF70, 0xFF9E, 0xFF9F, 0x3007:
		return true
	}
	return unicode.IsLetter(r) && (unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r))
}

func isWordByte(c byte) bool {
	return c >= utf8.RuneSelf || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
