package analyze

// Leads is the set of word beginnings that can give one of a set of
// terms: a filter that lets Match pass over most of a text's words without
// looking them up.
//
// A word token is lower-cased ASCII where it is ASCII, and analysis keeps
// a word's first two characters when they are ASCII letters or digits:
// normalisation leaves ASCII alone (a combining mark after it composes to
// a letter that folding takes back to it), folding keeps ASCII, and the
// Snowball stemmers of every Lang rewrite suffixes only, within regions
// that start after the second letter. The exceptions are English's: a
// suffix cut down to one letter ("eing" gives "e"), and the three words
// its stemmer rewrites whole ("dying", "lying" and "tying" give "die",
// "lie" and "tie"). So a token starting with an ASCII letter or digit can
// give a term only if the term starts with that byte, and, when its second
// byte is one too, only if the term starts with those two bytes, is a
// single byte, or starts with the first and an "i" where the token has a
// "y". Tokens starting otherwise (accented, other scripts, CJK grams) are
// always looked up. TestLeadPreserved holds every language to this.
type Leads struct {
	first [2]uint64                       // by first byte (ASCII)
	open  [2]uint64                       // first bytes whose second is not judged
	pair  [(leadN*leadN + 63) / 64]uint64 // by first two bytes (leadIndex)
}

// leadN is the number of lead bytes: a–z and 0–9.
const leadN = 36

// leadIndex numbers a lead byte (isLeadByte).
func leadIndex(c byte) int {
	if c >= 'a' {
		return int(c - 'a')
	}
	return 26 + int(c-'0')
}

// LeadsOf returns the leads of terms.
func LeadsOf(terms []string) Leads {
	var l Leads
	for _, t := range terms {
		if t == "" || t[0] >= 0x80 {
			continue
		}
		l.first[t[0]>>6] |= 1 << (t[0] & 63)
		if !isLeadByte(t[0]) || len(t) == 1 || !isLeadByte(t[1]) {
			l.open[t[0]>>6] |= 1 << (t[0] & 63)
			continue
		}
		l.addPair(t[0], t[1])
		if t[1] == 'i' {
			l.addPair(t[0], 'y') // dying → die
		}
	}
	return l
}

func (l *Leads) addPair(a, b byte) {
	i := leadIndex(a)*leadN + leadIndex(b)
	l.pair[i>>6] |= 1 << (i & 63)
}

// may reports whether a word token tok (not empty) can give one of the
// leads' terms.
func (l *Leads) may(tok []byte) bool {
	c := tok[0]
	if !isLeadByte(c) {
		return true
	}
	if l.first[c>>6]&(1<<(c&63)) == 0 {
		return false
	}
	if len(tok) < 2 || !isLeadByte(tok[1]) || l.open[c>>6]&(1<<(c&63)) != 0 {
		return true
	}
	i := leadIndex(c)*leadN + leadIndex(tok[1])
	return l.pair[i>>6]&(1<<(i&63)) != 0
}

// isLeadByte reports whether c is a byte the filter judges: an ASCII
// lower-case letter or digit, as the scanner gives a word's bytes.
func isLeadByte(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// Match calls fn for the tokens of text analysed as lang whose terms may
// be among those leads was made of, in order: every such token Analyze
// gives (same terms, positions and offsets), and possibly others, which
// the caller compares with its terms as it would Analyze's. Word tokens
// that cannot give one of them are passed over without being looked up,
// which is most of a text for a query of a few words.
func (a *Analyzer) Match(text string, lang Lang, leads *Leads, fn func(Token)) {
	a.analyze(text, lang, leads, fn)
}
