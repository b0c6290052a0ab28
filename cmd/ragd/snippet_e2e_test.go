package main

import (
	"context"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/ragd/ragd/ipc"
)

// Every result carries a snippet around the words it matched, and the
// match offsets slice its text and its snippet to those words exactly
// (folded accents and stems included); the snippet's lines are within the
// result's.
func TestSnippetOffsetsMatchTheText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Filler about the weather and nothing else. ", 40)
	e := newEnv(t, map[string]string{
		"Cafe.md":   "# Café notes\n\nThe café near München serves naïve espresso.\n",
		"Quokka.md": "# Animals\n\n" + long + "\n\nOn Rottnest the quokkas smiled at every visitor.\n\n" + long + "\n",
	})
	d := e.start()
	for _, q := range []string{"cafe munchen", "naive espresso", "quokka visitors", "\"quokkas smiled\""} {
		resp, err := d.Client.Search(context.Background(), ipc.SearchRequest{Query: q, K: 5, SnippetWidth: 80})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Results) == 0 {
			t.Fatalf("%q found nothing", q)
		}
		r := resp.Results[0]
		if len(r.Matches) == 0 || r.Snippet == nil || len(r.Snippet.Matches) == 0 {
			t.Fatalf("%q: no matches or snippet: %+v", q, r)
		}
		for _, m := range r.Matches {
			if m[0] < 0 || m[1] > len(r.Text) || m[0] >= m[1] {
				t.Fatalf("%q: match %v outside the text (%d bytes)", q, m, len(r.Text))
			}
			if word := fold(r.Text[m[0]:m[1]]); strings.TrimFunc(word, unicode.IsLetter) != "" {
				t.Errorf("%q: match %q is not a word", q, word)
			}
		}
		s := r.Snippet
		if !strings.Contains(r.Text, s.Text) || len([]rune(s.Text)) > 80+20 {
			t.Errorf("%q: snippet %q is not a short window of the text", q, s.Text)
		}
		for _, m := range s.Matches {
			got := fold(s.Text[m[0]:m[1]])
			found := false
			for _, w := range strings.Fields(strings.ToLower(strings.Trim(q, `"`))) {
				if strings.HasPrefix(got, w[:min(4, len(w))]) || strings.HasPrefix(w, got[:min(4, len(got))]) {
					found = true
				}
			}
			if !found {
				t.Errorf("%q: snippet match %q is not a query word", q, got)
			}
		}
		if s.LineStart < r.LineStart || s.LineEnd > r.LineEnd || s.LineStart > s.LineEnd {
			t.Errorf("%q: snippet lines %d-%d outside the result's %d-%d", q, s.LineStart, s.LineEnd, r.LineStart, r.LineEnd)
		}
		if strings.HasPrefix(q, "quokka") && !strings.Contains(s.Text, "quokkas") {
			t.Errorf("%q: the snippet %q misses the matched line", q, s.Text)
		}
	}
}

// fold lower-cases s and drops its accents.
func fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
