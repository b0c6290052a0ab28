package pdf

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/ledongthuc/pdf"
)

// line is a run of glyphs on one baseline, in drawing order.
type line struct {
	y, size float64 // baseline and largest font size
	end     float64 // x where the last glyph ends
	text    strings.Builder
}

// layout rebuilds lines and paragraphs from a page's glyphs, which the
// parser reports one per character in content-stream order (the order
// producers draw text in, which for ordinary documents is reading order).
//
// A glyph joins the current line when it sits on the same baseline
// (within 0.45 of the larger font size, so sub- and superscripts stay) and does not
// jump far back to the left; a space is inserted where the gap to the
// previous glyph exceeds a fifth of the font size (real space glyphs are
// kept as they are). Lines become paragraphs separated by a blank line
// where the vertical distance exceeds 1.3 times the page's most common
// line spacing, where the text goes up the page, or where the font size
// changes by more than 15%.
func layout(glyphs []pdf.Text) string {
	var lines []*line
	var cur *line
	var prev pdf.Text
	for _, g := range glyphs {
		if g.S == "" || g.S == "\n" || g.S == "\r" {
			continue
		}
		size := math.Abs(g.FontSize)
		if size < 1 || math.IsNaN(size) || math.IsInf(size, 0) {
			size = 10
		}
		if cur != nil && math.Abs(g.Y-cur.y) <= 0.45*max(size, cur.size) && g.X >= cur.end-3*size {
			// Overprinted glyph (fake bold): drop the copy. Only glyphs of
			// known width move, so others may legitimately share an X.
			if g.S == prev.S && g.W > 0 && math.Abs(g.X-prev.X) < size/10 && math.Abs(g.Y-prev.Y) < size/10 {
				continue
			}
			if gap := g.X - cur.end; gap > size/5 && !endsSpace(&cur.text) && !isSpace(g.S) {
				cur.text.WriteByte(' ')
			}
		} else {
			cur = &line{y: g.Y}
			lines = append(lines, cur)
		}
		cur.text.WriteString(g.S)
		cur.size = max(cur.size, size)
		cur.end = max(g.X+math.Max(g.W, 0), g.X)
		prev = g
	}
	return paragraphs(lines)
}

// paragraphs joins lines, with a blank line where a paragraph ends.
func paragraphs(lines []*line) string {
	var gaps []float64
	for i := 1; i < len(lines); i++ {
		if d := lines[i-1].y - lines[i].y; d > 0 {
			gaps = append(gaps, math.Round(d*2)/2)
		}
	}
	spacing := mode(gaps)
	var b strings.Builder
	for i, l := range lines {
		text := strings.Join(strings.Fields(l.text.String()), " ")
		if text == "" {
			continue
		}
		if i > 0 && b.Len() > 0 {
			p := lines[i-1]
			d := p.y - l.y
			ratio := l.size / p.size
			if d <= 0 || spacing > 0 && d > 1.3*spacing || ratio > 1.15 || ratio < 1/1.15 {
				b.WriteByte('\n')
			}
		}
		b.WriteString(text)
		b.WriteByte('\n')
	}
	return b.String()
}

// mode returns the most common value (the smallest on a tie), 0 if none.
func mode(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	best, bestN := xs[0], 0
	for i := 0; i < len(xs); {
		j := i
		for j < len(xs) && xs[j] == xs[i] {
			j++
		}
		if j-i > bestN {
			best, bestN = xs[i], j-i
		}
		i = j
	}
	return best
}

func endsSpace(b *strings.Builder) bool {
	s := b.String()
	return s == "" || s[len(s)-1] == ' '
}

func isSpace(s string) bool {
	return strings.TrimFunc(s, unicode.IsSpace) == ""
}
