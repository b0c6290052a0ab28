package query

import (
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query/snippet"
)

// snipTerms are the query's words as the snippet finder takes them.
func snipTerms(words []index.QueryWord) []snippet.Term {
	qt := make([]analyze.QueryTerm, len(words))
	for i, w := range words {
		qt[i] = w.QueryTerm
	}
	return snippet.Terms(qt)
}

// snip fills a result's snippet — the window of its text around the query
// words, with the lines it spans — and the byte offsets of every matched
// word in its text. A result whose text matches no query word (found by
// meaning alone) gets the start of its text. The text is analysed once
// for both.
func (e *Engine) snip(r *Result, terms []snippet.Term, width int) {
	if r.Text == "" {
		return
	}
	all := snippet.All(e.ix.Analyzer(), r.Text, terms, analyze.English)
	w := snippet.BestOf(r.Text, all, terms, snippet.Options{Width: width, Runes: true, Lang: analyze.English})
	s := &ipc.Snippet{Text: w.Text, LineStart: r.LineStart + w.LineStart - 1, LineEnd: r.LineStart + w.LineEnd - 1}
	for _, m := range w.Matches {
		s.Matches = append(s.Matches, [2]int{m.WinStart, m.WinEnd})
	}
	r.Snippet = s
	for _, m := range all {
		r.Matches = append(r.Matches, [2]int{m.Start, m.End})
	}
}
