package query

import (
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query/snippet"
)

// snip fills a result's snippet — the window of its text around the query
// words, with the lines it spans — and the byte offsets of every matched
// word in its text. A result whose text matches no query word (found by
// meaning alone) gets the start of its text.
func (e *Engine) snip(r *Result, words []index.QueryWord, width int) {
	if r.Text == "" {
		return
	}
	qt := make([]analyze.QueryTerm, len(words))
	for i, w := range words {
		qt[i] = w.QueryTerm
	}
	terms := snippet.Terms(qt)
	an := e.ix.Analyzer()
	w := snippet.Best(an, r.Text, terms, snippet.Options{Width: width, Runes: true})
	s := &ipc.Snippet{Text: w.Text, LineStart: r.LineStart + w.LineStart - 1, LineEnd: r.LineStart + w.LineEnd - 1}
	for _, m := range w.Matches {
		s.Matches = append(s.Matches, [2]int{m.WinStart, m.WinEnd})
	}
	r.Snippet = s
	for _, m := range snippet.All(an, r.Text, terms, analyze.English) {
		r.Matches = append(r.Matches, [2]int{m.Start, m.End})
	}
}
