// Package analyze turns text into the terms that the BM25 index stores and
// queries look up.
//
// Text is cut into tokens: runs of letters, digits and combining marks, and
// runs of CJK characters (Han, Hiragana, Katakana, Hangul), which yield
// overlapping bigrams. A word token is normalised (NFKC, lower-cased, Latin
// and Greek diacritics folded, so "Café", "CAFÉ" and "cafe" agree), stop
// words of the text's language are dropped and the rest are stemmed with
// that language's Snowball stemmer. Results are memoised per language, so a
// known ASCII word costs no allocation.
//
// Every term carries its position (stop words and dropped tokens leave a
// gap, so a phrase analysed the same way lines up) and the byte range of its
// source text, for snippets and highlighting.
//
// Documents and queries must go through the same analysis so that their
// terms agree; the index records Version so that a change of analysis forces
// a rebuild instead of silently mixing two vocabularies.
package analyze

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Version identifies the analysis rules. Bump it whenever a change to this
// package would produce different terms for the same text.
//
// Version 2 added NFKC normalisation, diacritic folding, CJK bigrams and
// per-language stop words and stemming.
const Version = 2

// maxTokenBytes drops tokens longer than this (base64 blobs, hashes, URLs
// glued together); they never make useful search terms.
const maxTokenBytes = 64

// maxCached bounds each memo so an adversarial vault cannot grow it without
// limit; past it, terms are computed but not remembered.
const maxCached = 1 << 20

// Token is one term of analysed text.
type Token struct {
	// Term is the index term: normalised, folded and stemmed.
	Term string
	// Pos is the token's position: the index of its source token in the
	// text, counting stop words and dropped tokens, so that the positions
	// of a phrase differ by one between adjacent terms wherever the phrase
	// occurs. Each CJK bigram is one position.
	Pos int
	// Start and End are the byte range [Start, End) in the analysed text of
	// the source token (for a bigram, of its two characters).
	Start, End int
	// ID numbers Term in the whole process (see TermID): two tokens with
	// the same ID have the same Term, whatever Analyzer made them. 0 when
	// the term has no number.
	ID uint32
}

// Analyzer produces index terms from text. It is safe for concurrent use;
// the zero value is not usable, call New.
type Analyzer struct {
	words [numLangs]memo // raw token (ASCII lower-cased) → term, "" if dropped
	grams memo           // normalised CJK gram → the same string, interned
	hot   sync.Pool      // *hotCache: each goroutine's table of the tokens it met
	small sync.Pool      // *hotCache of at most hotSmall slots, outside large passes
	kept  keptCaches     // tables kept out of the pool during a large pass
}

// memo is a bounded, concurrency-safe map.
type memo struct {
	mu sync.RWMutex
	m  map[string]memoEntry
}

// memoEntry is a memo's value: the term and its number (TermID), and the
// key as stored.
type memoEntry struct {
	raw, term string
	id        uint32
}

func (m *memo) get(key []byte) (memoEntry, bool) {
	m.mu.RLock()
	e, ok := m.m[string(key)]
	m.mu.RUnlock()
	return e, ok
}

func (m *memo) put(e memoEntry) {
	m.mu.Lock()
	if len(m.m) < maxCached {
		m.m[e.raw] = e
	}
	m.mu.Unlock()
}

// New returns an Analyzer with empty memos.
func New() *Analyzer {
	a := &Analyzer{}
	for l := range a.words {
		n := 64
		if Lang(l) == English {
			n = 1 << 14
		}
		a.words[l].m = make(map[string]memoEntry, n)
	}
	a.grams.m = make(map[string]memoEntry, 64)
	a.hot.New = func() any { return newHotCache(hotMax) }
	a.small.New = func() any { return newHotCache(hotSmall) }
	a.kept.slots = make([]atomic.Pointer[hotCache], min(max(runtime.GOMAXPROCS(0), 2), 64))
	return a
}

// Analyze calls fn for every term of text analysed as language lang, in
// order, duplicates included. Known words cost no allocation.
func (a *Analyzer) Analyze(text string, lang Lang, fn func(Token)) {
	a.analyze(text, lang, nil, fn)
}

// analyze is Analyze passing over the word tokens that cannot give one of
// leads' terms (all are looked up when leads is nil).
func (a *Analyzer) analyze(text string, lang Lang, leads *Leads, fn func(Token)) {
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
			if leads != nil && (len(tok) == 0 || !leads.may(tok)) {
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

// Terms calls fn for every term of text analysed as English, in order,
// duplicates included.
func (a *Analyzer) Terms(text string, fn func(term string)) {
	a.Analyze(text, English, func(t Token) { fn(t.Term) })
}

// AppendTerms appends the English terms of text to dst and returns it.
func (a *Analyzer) AppendTerms(dst []string, text string) []string {
	a.Analyze(text, English, func(t Token) { dst = append(dst, t.Term) })
	return dst
}

// word returns the memo entry of a word token in language l (its term ""
// for a stop word).
func (a *Analyzer) word(l Lang, tok []byte) memoEntry {
	m := &a.words[l]
	if e, ok := m.get(tok); ok {
		return e
	}
	e := memoEntry{raw: string(tok)}
	e.term, e.id = internTerm(analyzeWord(l, e.raw))
	m.put(e)
	return e
}

// gram interns a normalised CJK gram.
func (a *Analyzer) gram(g []byte) memoEntry {
	if e, ok := a.grams.get(g); ok {
		return e
	}
	e := memoEntry{raw: string(g)}
	e.term, e.id = internTerm(e.raw)
	a.grams.put(e)
	return e
}

// analyzeWord computes the term of a raw word token: normalised, checked
// against the stop words, stemmed and folded. English folds before it
// stems (its stemmer knows only a-z); the other languages' stemmers expect
// their accents, so they stem first and fold the stem.
func analyzeWord(l Lang, raw string) string {
	t := raw
	if !isASCII(t) {
		if t = normalizeWord(t); t == "" {
			return ""
		}
	}
	switch l {
	case None:
		return fold(t)
	case English:
		f := fold(t)
		if l.IsStopWord(f) {
			return ""
		}
		if len(f) > 2 && stemmableASCII(f) {
			return l.stem(f)
		}
		return f
	}
	t = foldYo(t)
	if l.IsStopWord(t) {
		return ""
	}
	if l.stemmable(t) {
		t = l.stem(t)
	}
	return fold(t)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func stemmableASCII(tok string) bool {
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		if (c < 'a' || c > 'z') && c != '\'' {
			return false
		}
	}
	return true
}
