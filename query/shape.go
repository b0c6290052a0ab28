package query

import (
	"strings"
	"unicode"

	"github.com/ragd/ragd/index/analyze"
)

// Keyword-shaped queries and questions. A query typed as a few keywords
// ("sync version history") names what it wants in the notes' own words:
// the lexical channel answers it, and a semantic opinion mostly reorders
// what it found well. A question or a description in sentences ("how do
// I get back an old version of a note") carries function words and often
// not the notes' words: that is where the vector channel helps. The
// default fusion weighs the vector channel by the query's shape
// (Options.KeywordVectorCut).

// keywordShaped reports whether text reads as keywords: no question mark,
// and at most one function word (stop word) among at most four words.
// Text in scripts without spaces between words (CJK) is judged by its
// runs, which a CJK query usually keeps short.
func keywordShaped(text string) bool {
	if strings.ContainsAny(text, "?？") {
		return false
	}
	words, stops := 0, 0
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '\'' }) {
		words++
		if analyze.IsStopWord(strings.ToLower(w)) {
			stops++
		}
	}
	return words > 0 && words <= 4 && stops <= 1
}
