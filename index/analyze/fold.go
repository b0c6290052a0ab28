package analyze

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// normalizeWord returns the NFKC form of a non-ASCII word token, lower-cased,
// keeping only letters, digits and marks (NFKC can turn a symbol-like
// character into punctuation: "½" becomes "1⁄2", kept as "12"). Full-width
// Latin, ligatures and other compatibility forms thus become plain letters.
func normalizeWord(s string) string {
	if !norm.NFKC.IsNormalString(s) {
		s = norm.NFKC.String(s)
	}
	s = strings.ToLower(s)
	if strings.IndexFunc(s, notWordRune) >= 0 {
		s = strings.Map(func(r rune) rune {
			if notWordRune(r) {
				return -1
			}
			return r
		}, s)
	}
	return s
}

func notWordRune(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsNumber(r) && !unicode.IsMark(r)
}

// foldMap holds the Latin (and Greek) letters that fold to something other
// than their canonical decomposition's base letter.
var foldMap = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d", 'ð': "d",
	'þ': "th", 'ı': "i", 'ħ': "h", 'ŧ': "t", 'ŀ': "l", 'ſ': "s", 'ĳ': "ij",
	'ς': "σ",
}

// fold removes diacritics from Latin and Greek letters of a lower-case
// string (café → cafe, straße → strasse, ø → o, ά → α) and turns the
// Russian ё into е. Other scripts keep their marks: Japanese voicing marks
// (が stays が), Cyrillic й, Indic vowel signs. The result is NFC.
func fold(s string) string {
	if isASCII(s) {
		return s
	}
	s = foldYo(s)
	if !needsFold(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	foldable := false // the last base letter was Latin or Greek
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			if !foldable {
				b.WriteRune(r)
			}
			continue
		}
		if rep, ok := foldMap[r]; ok {
			b.WriteString(rep)
			foldable = true
			continue
		}
		foldable = r < 0x80 || unicode.Is(unicode.Latin, r) || unicode.Is(unicode.Greek, r)
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

// needsFold reports whether s has a non-ASCII Latin or Greek letter or a
// combining mark: whether fold can change it.
func needsFold(s string) bool {
	for _, r := range s {
		if r >= 0x80 && (unicode.Is(unicode.Latin, r) || unicode.Is(unicode.Greek, r) || unicode.Is(unicode.Mn, r)) {
			return true
		}
	}
	return false
}

// foldYo replaces the Russian ё with е, as Russian text mostly writes it.
func foldYo(s string) string {
	if strings.Contains(s, "ё") {
		return strings.ReplaceAll(s, "ё", "е")
	}
	return s
}
