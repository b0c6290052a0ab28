package analyze

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
	"github.com/kljensen/snowball/french"
	"github.com/kljensen/snowball/hungarian"
	"github.com/kljensen/snowball/norwegian"
	"github.com/kljensen/snowball/russian"
	"github.com/kljensen/snowball/spanish"
	"github.com/kljensen/snowball/swedish"
)

// Lang selects the stop words and stemmer of an analysis. The zero value is
// English, the default.
type Lang uint8

// The languages with a Snowball stemmer, and None: no stop words, no
// stemming (normalisation, folding and CJK bigrams still apply).
const (
	English Lang = iota
	French
	Spanish
	Russian
	Swedish
	Norwegian
	Hungarian
	None
	numLangs
)

var langCodes = [numLangs]string{"en", "fr", "es", "ru", "sv", "no", "hu", "none"}

// langNames are accepted by ParseLang besides the codes.
var langNames = [numLangs]string{"english", "french", "spanish", "russian", "swedish", "norwegian", "hungarian", ""}

// Langs returns every language, None last.
func Langs() []Lang {
	out := make([]Lang, numLangs)
	for i := range out {
		out[i] = Lang(i)
	}
	return out
}

// String returns the language's code: "en", "fr", "es", "ru", "sv", "no",
// "hu" or "none".
func (l Lang) String() string {
	if l < numLangs {
		return langCodes[l]
	}
	return fmt.Sprintf("Lang(%d)", uint8(l))
}

// ErrUnknownLang is wrapped by ParseLang's error.
var ErrUnknownLang = fmt.Errorf("analyze: unknown language")

// ParseLang parses a language code or English name, case-insensitively:
// "en"/"english", "fr", "es", "ru", "sv", "no" (also "nb", "nn"), "hu" or
// "none". Anything else is an error wrapping ErrUnknownLang.
func ParseLang(s string) (Lang, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "nb", "nn", "nob", "nno":
		return Norwegian, nil
	}
	for i := range numLangs {
		if s == langCodes[i] || (s != "" && s == langNames[i]) {
			return i, nil
		}
	}
	return English, fmt.Errorf("%w %q (want one of %s)", ErrUnknownLang, s, strings.Join(langCodes[:], ", "))
}

// snowball holds each language's Snowball stop list and stemmer; None has
// neither. Norwegian uses the Snowball project's stop list and French adds
// two words (see stopwords.go).
var snowball = [None]struct {
	stop func(string) bool
	stem func(string, bool) string
}{
	English:   {english.IsStopWord, english.Stem},
	French:    {func(w string) bool { return french.IsStopWord(w) || frenchExtra(w) }, french.Stem},
	Spanish:   {spanish.IsStopWord, spanish.Stem},
	Russian:   {russian.IsStopWord, russian.Stem},
	Swedish:   {swedish.IsStopWord, swedish.Stem},
	Norwegian: {norwegianStopWord, norwegian.Stem},
	Hungarian: {hungarian.IsStopWord, hungarian.Stem},
}

// IsStopWord reports whether tok, lower-cased and unfolded (as the
// language writes it: "été", "för"), is a stop word of l (the Snowball
// lists). None has no stop words.
func (l Lang) IsStopWord(tok string) bool {
	return l < None && snowball[l].stop(tok)
}

// IsStopWord reports whether the lower-case token is an English stop word
// (the Snowball list).
func IsStopWord(tok string) bool { return english.IsStopWord(tok) }

// stem applies l's Snowball stemmer to a lower-case word.
func (l Lang) stem(w string) string {
	if l < None {
		return snowball[l].stem(w, false)
	}
	return w
}

// stemmable reports whether w is a word l's stemmer is made for: more than
// two letters, all of them in the language's script (Cyrillic for Russian,
// Latin otherwise). Numbers, codes and foreign words are left alone.
func (l Lang) stemmable(w string) bool {
	script := unicode.Latin
	if l == Russian {
		script = unicode.Cyrillic
	}
	n := 0
	for _, r := range w {
		if !unicode.Is(script, r) {
			return false
		}
		n++
	}
	return n > 2
}
