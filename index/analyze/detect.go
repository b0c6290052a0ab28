package analyze

import (
	"strings"
	"unicode/utf8"
)

// detectBytes is how much of a text Detect reads: a few paragraphs decide.
const detectBytes = 8 << 10

// Detect guesses the language of text from how many of its words are stop
// words of each supported language. Text that is mostly CJK is None (no
// stemmer applies); when no language stands out clearly, the answer is
// English. Only the first few kilobytes are read. A paragraph is enough.
func Detect(text string) Lang {
	if len(text) > detectBytes {
		cut := detectBytes
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut--
		}
		text = text[:cut]
	}
	var hits [numLangs]int
	words, cjk := 0, 0
	sc := newScanner(text)
	for {
		k, tok, _, _, ok := sc.next()
		if !ok {
			break
		}
		switch k {
		case pieceGram:
			cjk++
		case pieceWord:
			words++
			w := string(tok)
			if !isASCII(w) {
				w = foldYo(strings.ToLower(w))
			}
			for l := range None {
				if l.IsStopWord(w) {
					hits[l]++
				}
			}
		}
	}
	if cjk > words {
		return None
	}
	best := English
	for l := range None {
		if hits[l] > hits[best] {
			best = l
		}
	}
	// A language other than English needs several stop words, more than
	// English finds, and a share of the text a real language shows (stop
	// words are usually a third or more of running text).
	if best != English && (hits[best] < 3 || 8*hits[best] < words) {
		return English
	}
	return best
}
