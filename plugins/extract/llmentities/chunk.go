package llmentities

import (
	"strings"
	"unicode/utf8"
)

// chunk is a piece of the note sent to the model on its own.
type chunk struct {
	Line int // 1-based line of the note where the chunk starts
	Text string
}

// para is a run of non-blank lines, [start, end) as 0-based line indexes.
type para struct {
	start, end int
	heading    bool
}

// split cuts text into chunks of at most max characters. Every heading
// outside a code fence starts a new chunk, unless the chunk so far holds
// only headings; paragraphs are packed greedily; a longer paragraph is
// split by lines, and a longer line by characters.
func split(text string, max int) []chunk {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	var out []chunk
	var cur []para
	onlyHeadings := true
	flush := func() {
		if len(cur) > 0 {
			out = append(out, chunk{cur[0].start + 1, join(lines, cur[0].start, cur[len(cur)-1].end)})
		}
		cur, onlyHeadings = nil, true
	}
	for _, p := range paragraphs(lines) {
		size := chars(lines, p.start, p.end)
		switch {
		case size > max:
			flush()
			out = append(out, splitLong(lines, p, max)...)
			continue
		case p.heading && !onlyHeadings,
			len(cur) > 0 && chars(lines, cur[0].start, p.end) > max:
			flush()
		}
		cur = append(cur, p)
		onlyHeadings = onlyHeadings && p.heading
	}
	flush()
	return out
}

// paragraphs finds the runs of non-blank lines; a heading line is a
// paragraph of its own.
func paragraphs(lines []string) []para {
	var ps []para
	fence := ""
	start := -1
	end := func(i int) {
		if start >= 0 {
			ps = append(ps, para{start: start, end: i})
			start = -1
		}
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if fence == "" && isHeading(t) {
			end(i)
			ps = append(ps, para{start: i, end: i + 1, heading: true})
			continue
		}
		if f := fenceMark(t); f != "" {
			if fence == "" {
				fence = f
			} else if strings.HasPrefix(t, fence) {
				fence = ""
			}
		}
		if t == "" {
			end(i)
		} else if start < 0 {
			start = i
		}
	}
	end(len(lines))
	return ps
}

func isHeading(t string) bool {
	n := 0
	for n < len(t) && t[n] == '#' {
		n++
	}
	return n >= 1 && n <= 6 && (n == len(t) || t[n] == ' ' || t[n] == '\t')
}

func fenceMark(t string) string {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			return f
		}
	}
	return ""
}

// splitLong splits one paragraph longer than max by lines, and lines
// longer than max by characters.
func splitLong(lines []string, p para, max int) []chunk {
	var out []chunk
	start := -1
	for i := p.start; i < p.end; i++ {
		if utf8.RuneCountInString(lines[i]) > max {
			if start >= 0 {
				out = append(out, chunk{start + 1, join(lines, start, i)})
				start = -1
			}
			for _, piece := range runeChunks(lines[i], max) {
				out = append(out, chunk{i + 1, piece})
			}
			continue
		}
		if start >= 0 && chars(lines, start, i+1) > max {
			out = append(out, chunk{start + 1, join(lines, start, i)})
			start = -1
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		out = append(out, chunk{start + 1, join(lines, start, p.end)})
	}
	return out
}

func runeChunks(s string, max int) []string {
	var out []string
	for s != "" {
		n, i := 0, 0
		for i < len(s) && n < max {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			n++
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}

func join(lines []string, start, end int) string { return strings.Join(lines[start:end], "\n") }

// chars is the length in characters of lines [start, end) joined.
func chars(lines []string, start, end int) int {
	n := end - start - 1
	for _, l := range lines[start:end] {
		n += utf8.RuneCountInString(l)
	}
	return n
}
