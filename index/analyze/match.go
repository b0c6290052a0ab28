package analyze

// Leads is the set of first bytes a word token needs to be able to give
// one of a set of terms: a filter that lets Match pass over most of a
// text's words without looking them up.
//
// A word token is lower-cased ASCII where it is ASCII, and analysis never
// changes a word's first character when it is an ASCII letter or digit:
// normalisation leaves ASCII alone (a combining mark after it composes to
// a letter that folding takes back to it), folding keeps ASCII, and the
// Snowball stemmers of every Lang strip or rewrite suffixes only. So a
// token starting with an ASCII letter or digit can give a term only if
// the term starts with that byte. Tokens starting otherwise (accented or
// other scripts, CJK grams) are always looked up.
// TestLeadPreserved holds every language's analysis to this.
type Leads [4]uint64

// LeadsOf returns the leads of terms.
func LeadsOf(terms []string) Leads {
	var l Leads
	for _, t := range terms {
		if t != "" && t[0] < 0x80 {
			l[t[0]>>6] |= 1 << (t[0] & 63)
		}
	}
	return l
}

// may reports whether a word token starting with byte c can give one of
// the leads' terms.
func (l *Leads) may(c byte) bool {
	if c >= 0x80 || !isLeadByte(c) {
		return true
	}
	return l[c>>6]&(1<<(c&63)) != 0
}

// isLeadByte reports whether c is a byte the filter judges: an ASCII
// lower-case letter or digit, as the scanner gives a word's first byte.
func isLeadByte(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// Match calls fn for the tokens of text analysed as lang whose terms may
// be among those leads was made of, in order: every such token Analyze
// gives (same terms, positions and offsets), and possibly others, which
// the caller compares with its terms as it would Analyze's. Word tokens
// that cannot give one of them are passed over without being looked up,
// which is most of a text for a query of a few words.
func (a *Analyzer) Match(text string, lang Lang, leads *Leads, fn func(Token)) {
	if lang >= numLangs {
		lang = English
	}
	hc := a.getHot()
	defer a.putHot(hc)
	sc := newScanner(text)
	for pos := 0; ; pos++ {
		k, tok, start, end, ok := sc.next()
		if !ok {
			return
		}
		var e *hotSlot
		switch k {
		case pieceWord:
			if !leads.may(tok[0]) {
				continue
			}
			e = a.cached(hc, uint8(lang)+1, tok)
		case pieceGram:
			e = a.cached(hc, gramKind, tok)
		default:
			continue
		}
		if e.term != "" {
			fn(Token{Term: e.term, Pos: pos, Start: start, End: end, ID: e.id})
		}
	}
}
