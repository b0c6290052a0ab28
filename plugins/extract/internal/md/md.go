// Package md holds the small Markdown-writing helpers shared by the
// built-in extractors (docx, html): escaping text so that it stays a
// paragraph when the index chunks it as Markdown, collapsing whitespace,
// rendering tables, and a Writer that lays out blocks inside nested
// containers (list items, block quotes).
package md

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Clean makes s safe to index: valid UTF-8, no NUL or other control
// characters except tab and newline, and "\r\n" / "\r" turned into "\n".
func Clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				continue
			}
			b.WriteByte('\n')
		case c == '\f' || c == '\v':
			b.WriteByte('\n')
		case c < 0x20 && c != '\t' && c != '\n' || c == 0x7f:
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Collapse replaces every run of white space (including newlines and
// no-break spaces) by one space and trims both ends.
func Collapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// EscapeLine returns one line of paragraph text, without its leading
// white space, escaped so that Markdown reads it as plain paragraph text:
// a leading '#', '>', list marker, fence, thematic or setext underline, or
// ordered-list number gets a backslash.
func EscapeLine(line string) string {
	line = strings.TrimLeft(line, " \t")
	if line == "" {
		return line
	}
	switch c := line[0]; c {
	case '#', '>', '|', '<':
		return `\` + line
	case '-', '+', '*', '=', '_', '~', '`':
		if len(line) == 1 || line[1] == ' ' || line[1] == '\t' || line[1] == c {
			return `\` + line
		}
		if c == '-' || c == '=' {
			// "-- x" and "=x" are harmless, but a line of only '-'
			// or '=' characters (with spaces) is a setext underline.
			if strings.Trim(line, string(c)+" \t") == "" {
				return `\` + line
			}
		}
	case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		i := 0
		for i < len(line) && i < 10 && line[i] >= '0' && line[i] <= '9' {
			i++
		}
		if i < len(line) && (line[i] == '.' || line[i] == ')') &&
			(i+1 == len(line) || line[i+1] == ' ' || line[i+1] == '\t') {
			return line[:i] + `\` + line[i:]
		}
	}
	return line
}

// Escape escapes every line of s with EscapeLine.
func Escape(s string) string {
	if !strings.Contains(s, "\n") {
		return EscapeLine(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = EscapeLine(l)
	}
	return strings.Join(lines, "\n")
}

// Heading returns a Markdown ATX heading of the given level (clamped to
// 1..6) for text, or "" when text is blank.
func Heading(level int, text string) string {
	text = Collapse(text)
	if text == "" {
		return ""
	}
	level = min(max(level, 1), 6)
	return strings.Repeat("#", level) + " " + text
}

// Table renders rows as a Markdown pipe table whose first row is the
// header. Rows are padded to the widest row; cell text is collapsed to one
// line and '|' is escaped. It returns nil for a table without any text.
func Table(rows [][]string) []string {
	width, empty := 0, true
	for _, r := range rows {
		width = max(width, len(r))
		for _, c := range r {
			if strings.TrimSpace(c) != "" {
				empty = false
			}
		}
	}
	if width == 0 || empty {
		return nil
	}
	row := func(cells []string) string {
		var b strings.Builder
		b.WriteString("|")
		for i := range width {
			c := ""
			if i < len(cells) {
				c = strings.ReplaceAll(Collapse(cells[i]), "|", `\|`)
			}
			b.WriteString(" " + c + " |")
		}
		return b.String()
	}
	out := []string{row(rows[0]), "|" + strings.Repeat(" --- |", width)}
	for _, r := range rows[1:] {
		out = append(out, row(r))
	}
	return out
}

// Fence returns a code fence long enough not to close on any line of code.
func Fence(code string) string {
	n := 3
	for _, l := range strings.Split(code, "\n") {
		l = strings.TrimLeft(l, " ")
		k := 0
		for k < len(l) && l[k] == '`' {
			k++
		}
		n = max(n, k+1)
	}
	return strings.Repeat("`", n)
}

// FirstLine returns the first non-blank line of s, trimmed and cut to at
// most max bytes (on a rune boundary).
func FirstLine(s string, maxLen int) string {
	for l := range strings.SplitSeq(s, "\n") {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#>*-+ \\"))
		if l == "" {
			continue
		}
		if len(l) > maxLen {
			i := maxLen
			for i > 0 && !utf8.RuneStart(l[i]) {
				i--
			}
			l = strings.TrimSpace(l[:i])
		}
		return l
	}
	return ""
}
