package analyze

// QueryTerm is one position of a query analysed in several languages.
type QueryTerm struct {
	// Pos is the position, numbered like Token.Pos: adjacent query words
	// have adjacent positions, stop words leave gaps.
	Pos int
	// Start and End are the byte range of the source token in the query.
	Start, End int
	// Variants are the distinct terms the token analyses to, in the order
	// of the languages asked for; never empty. The ranker treats them as
	// one term (a document matches the position if it holds any variant).
	Variants []string
}

// Query analyses a query once per language in langs (English if none) and
// returns one QueryTerm per position that any of the languages keeps: a
// word that is a stop word in one language but not in another keeps the
// variants of the others. Tokenisation does not depend on the language, so
// positions agree across languages and with Analyze.
func (a *Analyzer) Query(text string, langs ...Lang) []QueryTerm {
	if len(langs) == 0 {
		langs = []Lang{English}
	}
	var out []QueryTerm
	sc := newScanner(text)
	for pos := 0; ; pos++ {
		k, tok, start, end, ok := sc.next()
		if !ok {
			break
		}
		var vs []string
		switch k {
		case pieceGram:
			vs = []string{a.gram(tok).term}
		case pieceWord:
			for _, l := range langs {
				if l >= numLangs {
					l = English
				}
				if t := a.word(l, tok).term; t != "" && !contains(vs, t) {
					vs = append(vs, t)
				}
			}
		}
		if len(vs) > 0 {
			out = append(out, QueryTerm{Pos: pos, Start: start, End: end, Variants: vs})
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
