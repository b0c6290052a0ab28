package main

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// defaultTextWidth is how much of a result's text is shown when the output
// is not a terminal (no width to fit).
const defaultTextWidth = 160

// snippetLine renders a result's text as one line of at most width runes:
// whitespace runs become one space, the window is moved to the first
// matched term when it would not show, cut ends are marked "…", and
// matched terms are bold on a terminal (palette). matches are byte ranges
// [start, end) in text.
func snippetLine(text string, matches [][2]int, width int, p palette) string {
	if width < 8 {
		width = 8
	}
	// Flatten: runes with, for each, whether it is inside a match.
	type cell struct {
		r     rune
		match bool
	}
	var cells []cell
	inMatch := func(off int) bool {
		for _, m := range matches {
			if off >= m[0] && off < m[1] {
				return true
			}
		}
		return false
	}
	space := false
	for off, r := range text {
		if unicode.IsSpace(r) {
			space = len(cells) > 0
			continue
		}
		if space {
			cells = append(cells, cell{' ', inMatch(off - 1)})
			space = false
		}
		if r == utf8.RuneError {
			r = '�'
		}
		cells = append(cells, cell{r, inMatch(off)})
	}
	start, end := 0, len(cells)
	if end > width {
		end = width
		first := slices.IndexFunc(cells, func(c cell) bool { return c.match })
		if first >= end-4 {
			// Show the first match with some context before it.
			start = max(0, first-width/4)
			end = min(len(cells), start+width)
			start = max(0, end-width)
		}
	}
	var b strings.Builder
	var run strings.Builder
	bold := false
	flush := func() {
		if run.Len() == 0 {
			return
		}
		if bold {
			b.WriteString(p.match(run.String()))
		} else {
			b.WriteString(run.String())
		}
		run.Reset()
	}
	lead, trail := start > 0, end < len(cells)
	for i := start; i < end; i++ {
		c := cells[i]
		if (i == start && lead) || (i == end-1 && trail) {
			flush()
			bold = false
			if i == start {
				run.WriteRune('…')
				continue
			}
			run.WriteRune('…')
			break
		}
		if c.match != bold {
			flush()
			bold = c.match
		}
		run.WriteRune(c.r)
	}
	flush()
	return b.String()
}

// fit cuts s to at most width runes, marking the cut with "…" (width 0:
// no limit).
func fit(s string, width int) string {
	if width <= 0 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:max(width-1, 0)]) + "…"
}
