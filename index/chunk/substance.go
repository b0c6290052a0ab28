package chunk

import (
	"bytes"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"
)

// minSubstance is the substance (see substance) below which a section is
// tiny and merges into a neighbour: less than one short sentence. "Done."
// has 4, "See [[Grinders]]." 11, "Pull a 1:2 shot in 28 s." 17, "Aphids on
// the roses; spray soapy water." 31. A tiny section on its own makes a poor
// retrieval unit: its chunk matches on its heading alone and carries no
// context.
const minSubstance = 24

// substance marks which bytes of a note's body are searchable text: the
// bytes of its letters and digits, except in headings (they travel in the
// heading fields), #tags, link destinations, bare URLs, HTML tags and
// comments, Obsidian %%comments%%, callout markers and embedded images; a
// wikilink counts by its display text (the alias, else the target and
// heading). Bytes rather than characters, so a CJK character weighs about
// a short word.
//
// The body is scanned once, so a range's substance is read in context (the
// tail of a URL cut off by a chunk boundary is still part of the URL) and
// is additive: the substance of two adjacent ranges is the sum of theirs.
type substance struct {
	base int
	bits []uint64 // bit i: byte base+i counts
	cum  []int32  // cum[w]: set bits in bits[:w]
}

// newSubstance scans src[base:], leaving out the heading spans heads.
// bitBuf and cumBuf are buffers to reuse (or nil).
func newSubstance(src []byte, base int, heads []span, bitBuf []uint64, cumBuf []int32) substance {
	n := (len(src) - base + 63) / 64
	bitBuf = slices.Grow(bitBuf[:0], n)[:n]
	clear(bitBuf)
	m := substance{base: base, bits: bitBuf}
	mark := func(i, size int) {
		for k := i - base; k < i-base+size; k++ {
			m.bits[k>>6] |= 1 << (k & 63)
		}
	}
	e := len(src)
	for i := base; i < e; {
		c := src[i]
		switch {
		case c == '#' && (i == base || isSpace(src[i-1]) || src[i-1] == '('):
			i = tagEnd(src, i+1, e)
		case c == '[' && i+1 < e && src[i+1] == '[':
			j := wikiEnd(src, i, e)
			if j < 0 {
				i++
				continue
			}
			inner := src[i+2 : j-2]
			from := 0
			if p := bytes.LastIndexByte(inner, '|'); p >= 0 {
				from = p + 1
			} else if i > base && src[i-1] == '!' && isMediaName(inner) {
				from = len(inner) // an embedded image shows no text
			}
			for k := i + 2 + from; k < j-2; {
				if size, ok := letterAt(src, k, j-2); ok {
					mark(k, size)
					k += size
				} else {
					k++
				}
			}
			i = j
		case c == '[' && i+1 < e && src[i+1] == '!': // callout marker [!note]
			if j := bytes.IndexByte(src[i:min(e, i+32)], ']'); j > 0 {
				i += j + 1
			} else {
				i++
			}
		case c == ']' && i+1 < e && src[i+1] == '(': // a link destination
			if j := bytes.IndexByte(src[i:lineEndAt(src, i, e)], ')'); j > 0 {
				i += j + 1
			} else {
				i++
			}
		case c == '<':
			i = htmlEnd(src, i, e)
		case c == '%' && i+1 < e && src[i+1] == '%': // an Obsidian comment, not shown
			if j := bytes.Index(src[i+2:e], []byte("%%")); j >= 0 {
				i += 2 + j + 2
			} else {
				i += 2
			}
		case (c == 'h' || c == 'H') && (i == base || !isWordByte(src[i-1])) && hasURL(src[i:e]):
			for i < e && !isSpace(src[i]) {
				i++
			}
		case isWordByte(c):
			// A run of ASCII letters and digits, marked at once: none of
			// the cases above starts inside one (each needs a byte that is
			// not a letter or digit, or one before it).
			j := i + 1
			for j < e && isWordByte(src[j]) {
				j++
			}
			setBits(m.bits, i-base, j-base)
			i = j
		default:
			size, ok := letterAt(src, i, e)
			if ok {
				mark(i, size)
			}
			i += size
		}
	}
	for _, h := range heads {
		if s, e := max(h.s, base)-base, h.e-base; s < e {
			clearBits(m.bits, s, e)
		}
	}
	m.cum = append(cumBuf[:0], 0)
	for w, b := range m.bits {
		m.cum = append(m.cum, m.cum[w]+int32(bits.OnesCount64(b)))
	}
	return m
}

// setBits sets bits [s, t) of b.
func setBits(b []uint64, s, t int) {
	for s < t {
		b[s>>6] |= rangeMask(s, t)
		s = (s | 63) + 1
	}
}

// clearBits clears bits [s, t) of b.
func clearBits(b []uint64, s, t int) {
	for s < t {
		b[s>>6] &^= rangeMask(s, t)
		s = (s | 63) + 1
	}
}

// rangeMask is the mask of the bits of [s, t) in the word holding bit s.
func rangeMask(s, t int) uint64 {
	m := ^uint64(0) << (s & 63)
	if t < (s|63)+1 {
		m &= 1<<(t&63) - 1
	}
	return m
}

// letterAt returns the size of the rune at src[i] and whether it is a
// letter or digit.
func letterAt(src []byte, i, e int) (int, bool) {
	if c := src[i]; c < utf8.RuneSelf {
		return 1, isWordByte(c)
	}
	r, size := utf8.DecodeRune(src[i:e])
	return size, unicode.IsLetter(r) || unicode.IsDigit(r)
}

// upto returns the substance of src[base:x].
func (m *substance) upto(x int) int {
	x -= m.base
	if x <= 0 {
		return 0
	}
	w := x >> 6
	n := int(m.cum[w])
	if r := x & 63; r != 0 {
		n += bits.OnesCount64(m.bits[w] & (1<<r - 1))
	}
	return n
}

// count returns the substance of src[s:e].
func (m *substance) count(s, e int) int {
	if e <= s {
		return 0
	}
	return m.upto(e) - m.upto(s)
}

// isWordByte reports whether c is an ASCII letter or digit.
func isWordByte(c byte) bool { return wordBytes[c] }

var wordBytes = func() (t [256]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

// lineEndAt returns the offset of the '\n' ending the line at i, or e.
func lineEndAt(src []byte, i, e int) int {
	if j := bytes.IndexByte(src[i:e], '\n'); j >= 0 {
		return i + j
	}
	return e
}

// tagEnd returns the end of the tag whose name starts at i (letters,
// digits, marks, '_', '-', '/').
func tagEnd(src []byte, i, e int) int {
	for i < e {
		r, size := utf8.DecodeRune(src[i:e])
		if r != '_' && r != '-' && r != '/' && !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsDigit(r) {
			break
		}
		i += size
	}
	return i
}

// wikiEnd returns the offset just past the "]]" closing the wikilink that
// starts at src[i:] ("[["), or -1 if it is not closed on its line.
func wikiEnd(src []byte, i, e int) int {
	for j := i + 2; j+1 < e; j++ {
		switch src[j] {
		case '\n', '[':
			return -1
		case ']':
			if src[j+1] == ']' {
				return j + 2
			}
			return -1
		}
	}
	return -1
}

// isMediaName reports whether a link target names an image, audio, video
// or PDF file.
func isMediaName(target []byte) bool {
	if h := bytes.IndexByte(target, '#'); h >= 0 {
		target = target[:h]
	}
	dot := bytes.LastIndexByte(target, '.')
	if dot < 0 {
		return false
	}
	switch string(bytes.ToLower(bytes.TrimSpace(target[dot+1:]))) {
	case "png", "jpg", "jpeg", "gif", "svg", "webp", "bmp", "avif", "tif", "tiff", "ico",
		"mp3", "wav", "ogg", "m4a", "flac", "mp4", "webm", "mov", "mkv", "pdf", "excalidraw", "canvas":
		return true
	}
	return false
}

// htmlEnd skips an HTML comment or tag starting at src[i] ('<') and returns
// where the text resumes; a '<' that starts neither is skipped alone.
func htmlEnd(src []byte, i, e int) int {
	if bytes.HasPrefix(src[i:e], []byte("<!--")) {
		if j := bytes.Index(src[i+4:e], []byte("-->")); j >= 0 {
			return i + 4 + j + 3
		}
		return i + 4 // not closed here: text
	}
	if i+1 < e && (src[i+1] == '/' || isWordByte(src[i+1])) {
		if j := bytes.IndexByte(src[i:lineEndAt(src, i, e)], '>'); j > 0 {
			return i + j + 1
		}
	}
	return i + 1
}

// hasURL reports whether b starts with "http://" or "https://".
func hasURL(b []byte) bool {
	return len(b) > 8 && (bytes.EqualFold(b[:7], []byte("http://")) || bytes.EqualFold(b[:8], []byte("https://")))
}
