// Package snippet finds the part of a result's text worth showing: the
// window of at most a given width that covers the most weight of distinct
// query terms, widened to whole words, with the byte offsets of every
// matched token so a client can highlight them.
//
// It is a pure computation over a chunk's text and the analysed query: the
// text is analysed with the same Analyzer (and language) the index used,
// so a query term matches exactly the tokens the index matched, including
// folded accents, stems and CJK bigrams.
package snippet

import (
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/ragd/ragd/index/analyze"
)

// DefaultWidth is the window width used when Options.Width is 0.
const DefaultWidth = 240

// minWidth is the smallest width accepted; smaller ones are raised to it.
const minWidth = 16

// Term is one query term.
type Term struct {
	// Variants are the index terms that count as this query term (for a
	// query analysed in several languages, every variant; see
	// analyze.QueryTerm).
	Variants []string
	// Weight is how much covering the term is worth, such as its idf;
	// zero or less counts as 1.
	Weight float64
}

// Terms turns an analysed query into Terms of weight 1, one per distinct
// set of variants (a word repeated in the query counts once).
func Terms(q []analyze.QueryTerm) []Term {
	out := make([]Term, 0, len(q))
	for _, qt := range q {
		dup := false
		for _, t := range out {
			if slices.Equal(t.Variants, qt.Variants) {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, Term{Variants: qt.Variants, Weight: 1})
		}
	}
	return out
}

// Options controls Best.
type Options struct {
	// Width is the maximum width of the window: bytes, or characters when
	// Runes is set. 0 means DefaultWidth; smaller than 16 means 16. A
	// window is wider only when one matched token alone is.
	Width int
	// Runes measures Width in characters (runes) rather than bytes.
	Runes bool
	// Lang is the language the text was indexed in.
	Lang analyze.Lang
}

// Match is a matched token.
type Match struct {
	Term       int // index into the query terms
	Start, End int // byte range of the token's source in the full text
	// WinStart and WinEnd are the same range relative to the window:
	// Window.Text[WinStart:WinEnd] is the token's source.
	WinStart, WinEnd int
}

// Window is the part of the text to show.
type Window struct {
	// Start and End are the window's byte range in the text; Text is
	// text[Start:End]. They fall on word boundaries (or at least rune
	// boundaries) and the text is trimmed of surrounding whitespace.
	Start, End int
	Text       string
	// LineStart and LineEnd are the 1-based lines of the text that the
	// window starts and ends on; add the chunk's first line minus one to
	// cite them in the file.
	LineStart, LineEnd int
	// Matches are the matched tokens inside the window, in text order.
	// Tokens may overlap (CJK bigrams share a character).
	Matches []Match
	// Score is the summed weight of the distinct terms in the window;
	// 0 when nothing matched (the window is then the start of the text).
	Score float64
}

// All returns every matched token of text, in text order (Window offsets
// are those of the whole text).
func All(an *analyze.Analyzer, text string, terms []Term, lang analyze.Lang) []Match {
	if len(terms) == 0 {
		return nil
	}
	var ms []Match
	find := newFinder(terms)
	an.Match(text, lang, &find.leads, func(t analyze.Token) {
		if k := find.term(t.Term); k >= 0 {
			ms = append(ms, Match{Term: k, Start: t.Start, End: t.End, WinStart: t.Start, WinEnd: t.End})
		}
	})
	return ms
}

// Best returns the window of text that covers the most weight of distinct
// query terms. Among equal windows it prefers one that can start at a line
// or sentence boundary, then the earlier one. The window is widened around
// the matches to use the width, starting at the line or sentence start
// before them when it is within reach, and never splits a word that fits
// or a UTF-8 sequence. With no match, the window is the start of the text.
func Best(an *analyze.Analyzer, text string, terms []Term, opt Options) Window {
	return best(text, All(an, text, terms, opt.Lang), terms, opt, false)
}

// BestOf is Best over the matches All returned for the same text, terms
// and language (opt.Lang): a caller that wants both analyses the text once.
// It does not modify all.
func BestOf(text string, all []Match, terms []Term, opt Options) Window {
	return best(text, all, terms, opt, true)
}

// best is Best over the matches of text; shared says all belongs to the
// caller, so the window's matches are copied before their window offsets
// are set.
func best(text string, all []Match, terms []Term, opt Options, shared bool) Window {
	width := opt.Width
	if width == 0 {
		width = DefaultWidth
	}
	width = max(width, minWidth)
	m := newMeasure(text, opt.Runes)
	if len(all) == 0 {
		s := skipSpaceFwd(text, 0, len(text))
		return finish(text, s, wordEnd(text, s, m.advance(s, width), s), nil, 0)
	}

	// Two pointers: for every first match i, the longest run i..j whose
	// span fits the width; its score is the weight of its distinct terms.
	count := make([]int, len(terms))
	weight := func(k int) float64 {
		if w := terms[k].Weight; w > 0 {
			return w
		}
		return 1
	}
	bestI, bestJ, best, bestBound := 0, 0, -1.0, false
	score := 0.0
	j := 0 // matches [i, j) are in the window
	for i := range all {
		if j < i {
			j = i
		}
		for j < len(all) && (j == i || m.dist(all[i].Start, all[j].End) <= width) {
			if count[all[j].Term] == 0 {
				score += weight(all[j].Term)
			}
			count[all[j].Term]++
			j++
		}
		if score > best {
			best, bestI, bestJ = score, i, j
			bestBound = boundaryWithin(text, m, all[i].Start, all[j-1].End, width)
		} else if score == best && !bestBound && boundaryWithin(text, m, all[i].Start, all[j-1].End, width) {
			bestI, bestJ, bestBound = i, j, true
		}
		if count[all[i].Term]--; count[all[i].Term] == 0 {
			score -= weight(all[i].Term)
		}
	}

	cs, ce := all[bestI].Start, all[bestJ-1].End
	for _, x := range all[bestI:bestJ] {
		ce = max(ce, x.End)
	}
	start, end := place(text, m, cs, ce, width)
	// The window may take in matches around the cluster.
	lo, hi := bestI, bestJ
	for lo > 0 && all[lo-1].Start >= start {
		lo--
	}
	for hi < len(all) && all[hi].End <= end {
		hi++
	}
	in := all[lo:hi]
	if shared {
		in = slices.Clone(in)
	}
	return finish(text, start, end, in, best)
}

// finish builds the Window for [start, end) with the matches inside it.
func finish(text string, start, end int, ms []Match, score float64) Window {
	start, end = trimSpace(text, start, end)
	for i := range ms {
		ms[i].WinStart, ms[i].WinEnd = ms[i].Start-start, ms[i].End-start
	}
	w := Window{Start: start, End: end, Text: text[start:end], Matches: ms, Score: score}
	w.LineStart = 1 + countNL(text[:start])
	w.LineEnd = w.LineStart
	if end > start {
		w.LineEnd += countNL(text[start : end-1])
	}
	return w
}

// place chooses the window [start, end) around the cluster [cs, ce): it
// starts at the latest line or sentence start that leaves the cluster in
// the window, else a little before the cluster (a third of the room left),
// and takes as much after it as the width allows; both ends are moved to
// word boundaries without cutting into the cluster.
func place(text string, m measure, cs, ce, width int) (int, int) {
	if m.dist(cs, ce) >= width {
		return cs, ce
	}
	lo := m.back(ce, width) // the earliest start that keeps ce in the window
	start := -1
	for p := cs; p >= lo; p-- {
		if boundaryAt(text, p) {
			start = p
			break
		}
	}
	bound := start >= 0
	if !bound {
		room := width - m.dist(cs, ce)
		start = wordStart(text, m.back(cs, room/3), cs)
	}
	end := wordEnd(text, start, m.advance(start, width), ce)
	if end == len(text) && start > 0 && !bound {
		// The text ends early: use the room for more before the cluster.
		if s := wordStart(text, m.back(end, width), start); s < start {
			start = s
		}
	}
	return start, end
}

// boundaryWithin reports whether a window holding [cs, ce) can start at a
// line or sentence start.
func boundaryWithin(text string, m measure, cs, ce, width int) bool {
	lo := m.back(ce, width)
	for p := cs; p >= lo; p-- {
		if boundaryAt(text, p) {
			return true
		}
	}
	return false
}

// boundaryAt reports whether a window may start at text[p] on a boundary:
// the start of the text, of a line or of a sentence.
func boundaryAt(text string, p int) bool {
	if p == 0 {
		return true
	}
	if p >= len(text) || isSpace(text[p]) || !utf8.RuneStart(text[p]) {
		return false
	}
	if c := text[p-1]; !isSpace(c) {
		return c >= utf8.RuneSelf && cjkStop(text, p)
	}
	return lineStart(text, p) || sentenceStart(text, p)
}

// finder maps index terms to query terms.
type finder struct {
	terms []Term
	m     map[string]int // when there are many variants
	leads analyze.Leads  // of every variant: the words worth looking up
}

func newFinder(terms []Term) finder {
	f := finder{terms: terms}
	n := 0
	var all []string
	for _, t := range terms {
		n += len(t.Variants)
		all = append(all, t.Variants...)
	}
	f.leads = analyze.LeadsOf(all)
	if n > 16 {
		f.m = make(map[string]int, n)
		for k := len(terms) - 1; k >= 0; k-- {
			for _, v := range terms[k].Variants {
				f.m[v] = k
			}
		}
	}
	return f
}

// term returns the query term s is a variant of, or -1.
func (f finder) term(s string) int {
	if f.m != nil {
		if k, ok := f.m[s]; ok {
			return k
		}
		return -1
	}
	for k, t := range f.terms {
		for _, v := range t.Variants {
			if v == s {
				return k
			}
		}
	}
	return -1
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isWordRune reports whether r belongs to a word that must not be cut: a
// letter, digit or mark, except in Han and kana text, which is written
// without spaces and may be cut between any two characters.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_'
	}
	if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || r == 'ー' {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}
