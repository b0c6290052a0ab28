// Package analyze turns text into the terms that the BM25 index stores and
// queries look up: Unicode-aware tokenization, lower-casing, English stop-word
// removal and Snowball (Porter2) stemming, memoised.
//
// Documents and queries must go through the same Analyzer so that their terms
// agree; the index records Version so that a change of analysis forces a
// rebuild instead of silently mixing two vocabularies.
package analyze

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Version identifies the analysis rules. Bump it whenever a change to this
// package would produce different terms for the same text.
const Version = 1

// maxTokenBytes drops tokens longer than this (base64 blobs, hashes, URLs
// glued together); they never make useful search terms.
const maxTokenBytes = 64

// maxCached bounds the stem memo so an adversarial vault cannot grow it
// without limit; past it, stems are computed but not remembered.
const maxCached = 1 << 20

// Analyzer produces index terms from text. It is safe for concurrent use;
// the zero value is not usable, call New.
type Analyzer struct {
	mu    sync.RWMutex
	stems map[string]string
}

// New returns an Analyzer with an empty stem memo.
func New() *Analyzer {
	return &Analyzer{stems: make(map[string]string, 1<<14)}
}

// Terms calls fn for every term of text, in order, duplicates included.
// Known words cost no allocation: their stems come from the memo.
func (a *Analyzer) Terms(text string, fn func(term string)) {
	tokenBytes(text, func(tok []byte) {
		a.mu.RLock()
		s, ok := a.stems[string(tok)]
		a.mu.RUnlock()
		if !ok {
			s = a.learn(string(tok))
		}
		if s != "" {
			fn(s)
		}
	})
}

// learn analyses a token not yet in the memo and remembers the result. It
// returns "" for a stop word.
func (a *Analyzer) learn(tok string) string {
	s := tok
	if IsStopWord(tok) {
		s = ""
	} else if len(tok) > 2 && stemmable(tok) {
		s = english.Stem(tok, false)
	}
	a.mu.Lock()
	if len(a.stems) < maxCached {
		a.stems[tok] = s
	}
	a.mu.Unlock()
	return s
}

// AppendTerms appends the terms of text to dst and returns it.
func (a *Analyzer) AppendTerms(dst []string, text string) []string {
	a.Terms(text, func(t string) { dst = append(dst, t) })
	return dst
}

func stemmable(tok string) bool {
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if c < 'a' || c > 'z' {
			if c != '\'' {
				return false
			}
		}
	}
	return true
}

// IsStopWord reports whether the lower-case token is an English stop word
// (the Snowball list).
func IsStopWord(tok string) bool { return english.IsStopWord(tok) }

// Tokens calls fn with every lower-cased token of text. A token is a maximal
// run of letters, digits and combining marks; ideographic scripts (Han,
// Hiragana, Katakana, Hangul syllables are not split by spaces) yield one token per rune so
// that CJK text is still searchable by character. Apostrophes inside words
// are dropped ("don't" → "dont") so possessives and contractions stay whole.
func Tokens(text string, fn func(tok string)) {
	tokenBytes(text, func(b []byte) { fn(string(b)) })
}

// tokenBytes is Tokens without allocation: tok is valid only during fn.
func tokenBytes(text string, fn func(tok []byte)) {
	var buf [maxTokenBytes * 2]byte
	tok := buf[:0]
	long := false
	flush := func() {
		if len(tok) > 0 && !long {
			fn(tok)
		}
		tok = tok[:0]
		long = false
	}
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
				tok = appendByte(tok, c, &long)
			case 'A' <= c && c <= 'Z':
				tok = appendByte(tok, c+('a'-'A'), &long)
			case c == '\'' && len(tok) > 0 && i < len(text) && isWordByte(text[i]):
				// inner apostrophe: skip it, keep the word together
			default:
				flush()
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		switch {
		case r == '’' && len(tok) > 0 && i < len(text) && isWordByte(text[i]):
		case isIdeograph(r):
			flush()
			var rb [utf8.UTFMax]byte
			n := utf8.EncodeRune(rb[:], r)
			fn(rb[:n])
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			r = unicode.ToLower(r)
			if len(tok)+utf8.RuneLen(r) > maxTokenBytes {
				long = true
			}
			if !long {
				tok = utf8.AppendRune(tok, r)
			}
		default:
			flush()
		}
	}
	flush()
}

func appendByte(tok []byte, c byte, long *bool) []byte {
	if len(tok) >= maxTokenBytes {
		*long = true
		return tok
	}
	return append(tok, c)
}

func isWordByte(c byte) bool {
	return c >= utf8.RuneSelf || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isIdeograph(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}
