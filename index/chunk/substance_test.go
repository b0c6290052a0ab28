package chunk

import (
	"bytes"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// substanceByBytes is newSubstance as it was written first, marking one
// letter at a time: the reference the run-at-once version must match.
func substanceByBytes(src []byte, base int, heads []span) []uint64 {
	bits := make([]uint64, (len(src)-base+63)/64)
	mark := func(i, size int) {
		for k := i - base; k < i-base+size; k++ {
			bits[k>>6] |= 1 << (k & 63)
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
				from = len(inner)
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
		case c == '[' && i+1 < e && src[i+1] == '!':
			if j := bytes.IndexByte(src[i:min(e, i+32)], ']'); j > 0 {
				i += j + 1
			} else {
				i++
			}
		case c == ']' && i+1 < e && src[i+1] == '(':
			if j := bytes.IndexByte(src[i:lineEndAt(src, i, e)], ')'); j > 0 {
				i += j + 1
			} else {
				i++
			}
		case c == '<':
			i = htmlEnd(src, i, e)
		case c == '%' && i+1 < e && src[i+1] == '%':
			if j := bytes.Index(src[i+2:e], []byte("%%")); j >= 0 {
				i += 2 + j + 2
			} else {
				i += 2
			}
		case (c == 'h' || c == 'H') && (i == base || !isWordByte(src[i-1])) && hasURL(src[i:e]):
			for i < e && !isSpace(src[i]) {
				i++
			}
		default:
			size, ok := letterAt(src, i, e)
			if ok {
				mark(i, size)
			}
			i += size
		}
	}
	for _, h := range heads {
		for k := max(h.s, base) - base; k < h.e-base; k++ {
			bits[k>>6] &^= 1 << (k & 63)
		}
	}
	return bits
}

func checkSubstance(t *testing.T, src []byte, base int, heads []span) {
	t.Helper()
	want := substanceByBytes(src, base, heads)
	got := newSubstance(src, base, heads, nil, nil)
	if !slices.Equal(got.bits, want) {
		t.Fatalf("substance of %q (base %d, heads %v) differs from the letter-by-letter scan", src, base, heads)
	}
	for w := range got.bits {
		if n := got.upto(base + 64*w); n != got.count(base, base+64*w) {
			t.Fatalf("upto and count disagree at word %d", w)
		}
	}
}

// TestSubstanceMatchesLetterByLetter compares newSubstance, which marks a
// run of ASCII letters and digits at once, with marking letter by letter,
// on random text of the bytes that matter and on the sample notes.
func TestSubstanceMatchesLetterByLetter(t *testing.T) {
	pieces := []string{"a", "Z", "9", "h", "H", "http://x.y", "https://a", " ", "\n", "#", "#t", "[[", "]]", "|", "![[", "x.png",
		"[!", "](", ")", "<", "<b>", "</i>", "<!--", "-->", "%%", "é", "漢", "👍", "_", "-", "(", "\t", "word", "HTTPS://Q"}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		var b []byte
		for range rng.IntN(200) {
			b = append(b, pieces[rng.IntN(len(pieces))]...)
		}
		base := 0
		if len(b) > 0 {
			base = rng.IntN(len(b) + 1)
		}
		var heads []span
		for range rng.IntN(4) {
			s := rng.IntN(len(b) + 1)
			heads = append(heads, span{s: s, e: s + rng.IntN(len(b)-s+1)})
		}
		checkSubstance(t, b, base, heads)
	}
	files, _ := globNotes()
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		checkSubstance(t, src, 0, []span{{s: 0, e: min(len(src), 10)}, {s: len(src) / 2, e: min(len(src), len(src)/2+70)}})
	}
}

func FuzzSubstance(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), uint8(0), uint16(3), uint16(9))
	}
	f.Fuzz(func(t *testing.T, src []byte, base uint8, hs, he uint16) {
		b := min(int(base), len(src))
		s := min(int(hs), len(src))
		e := min(max(int(he), s), len(src))
		checkSubstance(t, src, b, []span{{s: s, e: e}})
	})
}
