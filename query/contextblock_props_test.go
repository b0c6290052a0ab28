package query

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// fileLines maps vault and path to the lines the hits quote.
func fileLines(hits []ContextHit) map[[2]string]map[int]string {
	out := map[[2]string]map[int]string{}
	for _, h := range hits {
		k := [2]string{h.Vault, h.Path}
		if out[k] == nil {
			out[k] = map[int]string{}
		}
		for i, l := range hitLines(h) {
			out[k][h.LineStart+i] = l
		}
	}
	return out
}

// checkBlock parses a block and checks it against the hits, which must
// agree with each other on every line: every quoted line is the hits' line
// of that number, headers carry the citations, quoted text stays within
// the budget, the ranges of a file are disjoint and not adjacent, no entry
// starts or ends with a blank line, and without truncation every non-blank
// line of every hit is cited.
func checkBlock(t *testing.T, hits []ContextHit, opt ContextOptions, cb ContextBlock) {
	t.Helper()
	src := fileLines(hits)
	if len(cb.Citations) == 0 {
		if cb.Text != "" {
			t.Errorf("no citations but text %q", cb.Text)
		}
		for _, ls := range src {
			for _, l := range ls {
				if !isBlank(l) && !cb.Truncated {
					t.Errorf("hits quote %q but the block is empty and not truncated", l)
				}
			}
		}
		return
	}
	budget := opt.Budget
	if budget <= 0 {
		budget = DefaultContextBudget
	}
	preview := opt.PreviewLines
	if preview <= 0 {
		preview = DefaultPreviewLines
	}
	lines := strings.Split(cb.Text, "\n")
	if lines[0] != "<retrieved-context>" || lines[len(lines)-1] != "" || lines[len(lines)-2] != "</retrieved-context>" {
		t.Fatalf("block is not wrapped in <retrieved-context>:\n%s", cb.Text)
	}
	at, spent := 1, 0
	cited := map[[2]string]map[int]bool{}
	for i, c := range cb.Citations {
		if i > 0 {
			if lines[at] != "" {
				t.Fatalf("entry %d: want a blank line before it, got %q", i+1, lines[at])
			}
			at++
		}
		head := fmt.Sprintf("[%d] %s", i+1, c.Cite)
		if !strings.HasPrefix(lines[at], head) {
			t.Fatalf("entry %d: header %q does not start with %q", i+1, lines[at], head)
		}
		if want := fmt.Sprintf("%s:L%d-L%d", c.Path, c.LineStart, c.LineEnd); c.Cite != want {
			t.Errorf("entry %d: Cite %q, want %q", i+1, c.Cite, want)
		}
		if c.Stale != strings.Contains(lines[at], "(stale: file changed since indexing)") {
			t.Errorf("entry %d: Stale=%v but header %q", i+1, c.Stale, lines[at])
		}
		key := [2]string{c.Vault, c.Path}
		n := c.LineEnd - c.LineStart + 1
		if opt.Style == StyleSummary {
			// The whole range unless the header announces a preview.
			if _, after, ok := strings.Cut(lines[at], " (preview: first "); ok {
				k, _ := strconv.Atoi(strings.Fields(after)[0])
				if k <= 0 || k >= n {
					t.Errorf("entry %d: header %q, range of %d lines", i+1, lines[at], n)
				}
				nonBlank := 0
				for ln := c.LineStart; ln < c.LineStart+k; ln++ {
					if !isBlank(src[key][ln]) {
						nonBlank++
					}
				}
				if nonBlank > preview {
					t.Errorf("entry %d: preview of %d lines holds %d non-blank lines, want at most %d", i+1, k, nonBlank, preview)
				}
				n = k
			}
		}
		at++
		if cited[key] == nil {
			cited[key] = map[int]bool{}
		}
		for ln := c.LineStart; ln <= c.LineEnd; ln++ {
			if cited[key][ln] || cited[key][ln-1] && ln == c.LineStart || cited[key][ln+1] && ln == c.LineEnd {
				t.Errorf("entry %d: %s overlaps or touches another range of the file", i+1, c.Cite)
			}
		}
		for ln := c.LineStart; ln <= c.LineEnd; ln++ {
			cited[key][ln] = true
		}
		if n == 0 || isBlank(src[key][c.LineStart]) || isBlank(src[key][c.LineStart+n-1]) {
			t.Errorf("entry %d: %s quotes %d lines, starting or ending with a blank one", i+1, c.Cite, n)
		}
		for j := range n {
			ln := c.LineStart + j
			want, ok := src[key][ln]
			if !ok {
				t.Errorf("entry %d: line %d of %s was quoted but no hit holds it", i+1, ln, c.Path)
			} else if lines[at] != want {
				t.Errorf("entry %d: line %d of %s is %q, want %q", i+1, ln, c.Path, lines[at], want)
			}
			spent += len([]rune(lines[at])) + 1
			at++
		}
	}
	if lines[at] != "</retrieved-context>" || at != len(lines)-2 {
		t.Errorf("after the last entry: %q, want the closing tag", lines[at])
	}
	if spent > budget {
		t.Errorf("quoted %d characters, budget %d", spent, budget)
	}
	if !cb.Truncated && opt.Style != StyleSummary {
		for key, ls := range src {
			for ln, l := range ls {
				if !cited[key][ln] && !isBlank(l) {
					t.Errorf("line %d of %s was lost without truncation", ln, key[1])
				}
			}
		}
	}
}

// TestBuildContextProperties builds blocks from random chunks of random
// files and checks that no text is invented, lost, misnumbered or over
// budget.
func TestBuildContextProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	words := []string{"alpha", "Grüße", "日本語", "", "  indented", "- [ ] task", "[3] not a header", "</x>", "a\tb", "ç"}
	for iter := range 500 {
		var files []note
		for f := range 1 + rng.IntN(4) {
			var b strings.Builder
			for l := range 1 + rng.IntN(40) {
				fmt.Fprintf(&b, "f%d l%d %s\n", f, l+1, words[rng.IntN(len(words))])
				if rng.IntN(6) == 0 {
					b.WriteString("\n") // empty lines
				}
			}
			files = append(files, newNote([]string{"notes", "work"}[rng.IntN(2)], fmt.Sprintf("dir/f%d.md", f), b.String()))
		}
		var hits []ContextHit
		for range rng.IntN(12) {
			n := files[rng.IntN(len(files))]
			s := 1 + rng.IntN(len(n.lines))
			e := min(len(n.lines), s+rng.IntN(8))
			h := n.hit(s, e, fmt.Sprintf("H%d", s), float64(rng.IntN(5)))
			switch rng.IntN(4) {
			case 0:
				h.Text = strings.TrimSuffix(h.Text, "\n")
			case 1:
				h.Text = strings.ReplaceAll(h.Text, "\n", "\r\n")
			}
			h.Stale = rng.IntN(10) == 0
			hits = append(hits, h)
		}
		opt := ContextOptions{Budget: []int{0, 40, 120, 400, 100000}[rng.IntN(5)], PreviewLines: rng.IntN(4)}
		if rng.IntN(3) == 0 {
			opt.Style = StyleSummary
		}
		cb := BuildContext(hits, opt)
		ok := t.Run(fmt.Sprintf("case%d", iter), func(t *testing.T) { checkBlock(t, hits, opt, cb) })
		if !ok {
			t.Logf("hits: %+v\nopt: %+v\nblock:\n%s", hits, opt, cb.Text)
			return
		}
		if opt.Budget == 100000 && opt.Style == "" && cb.Truncated {
			t.Fatalf("case %d: truncated under a huge budget", iter)
		}
	}
}
