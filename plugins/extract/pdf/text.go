package pdf

import (
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/extract/internal/md"
)

// document is what a backend read: the text of every page (lines
// separated by '\n', paragraphs by blank lines) and the Info dictionary
// (keys as in PDF: Title, Author, ...).
type document struct {
	pages   []string
	info    map[string]string
	backend string
}

// ligatures are presentation forms that read better as letters.
var ligatures = strings.NewReplacer("\ufb00", "ff", "\ufb01", "fi", "\ufb02", "fl", "\ufb03", "ffi", "\ufb04", "ffl", "\ufb05", "st", "\ufb06", "st")

// extraction lays the pages out as one text and fills Pages, Title and
// Metadata.
func (d *document) extraction(stripHeaders bool) plugins.Extraction {
	pages := make([][]string, len(d.pages))
	for i, p := range d.pages {
		pages[i] = tidy(strings.Split(ligatures.Replace(md.Clean(p)), "\n"))
	}
	if stripHeaders {
		stripRepeated(pages)
	}
	var b strings.Builder
	x := plugins.Extraction{Format: plugins.FormatText, Pages: make([]plugins.Page, len(pages))}
	line := 1 // line the next written line will have
	for i, p := range pages {
		p = dehyphenate(tidy(p))
		start := line
		if b.Len() > 0 {
			start++ // after the blank line between pages
		}
		x.Pages[i] = plugins.Page{Number: i + 1, StartLine: start}
		if len(p) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			line++
		}
		for _, l := range p {
			b.WriteString(l)
			b.WriteByte('\n')
			line++
		}
	}
	for i := range x.Pages { // empty trailing pages point at the last line
		x.Pages[i].StartLine = max(1, min(x.Pages[i].StartLine, line-1))
	}
	x.Text = b.String()
	x.Title = title(d.info["Title"], x.Text)
	x.Metadata = map[string]string{"pages": strconv.Itoa(len(pages)), "extractor": d.backend}
	for k, key := range map[string]string{"Author": "author", "Subject": "subject", "Keywords": "keywords",
		"Creator": "creator", "Producer": "producer", "CreationDate": "created"} {
		if v := md.Collapse(md.Clean(d.info[k])); v != "" {
			if key == "created" {
				v = isoDate(v)
			}
			x.Metadata[key] = v
		}
	}
	return x
}

// tidy trims trailing space from lines, collapses runs of blank lines and
// drops blank lines at both ends.
func tidy(lines []string) []string {
	out := lines[:0]
	for _, l := range lines {
		l = strings.TrimRightFunc(l, unicode.IsSpace)
		if l == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, l)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// stripRepeated removes running headers and footers: a line among the
// first or last two of a page whose text (digits ignored) is also there on
// at least 60% of the pages, and on two or more.
func stripRepeated(pages [][]string) {
	if len(pages) < 2 {
		return
	}
	edges := func(p []string) []int {
		var idx []int
		for i := 0; i < len(p) && len(idx) < 2; i++ {
			if p[i] != "" {
				idx = append(idx, i)
			}
		}
		for i, n := len(p)-1, 0; i >= 0 && n < 2; i-- {
			if p[i] != "" {
				idx = append(idx, i)
				n++
			}
		}
		return idx
	}
	count := map[string]int{}
	for _, p := range pages {
		seen := map[string]bool{}
		for _, i := range edges(p) {
			if k := edgeKey(p[i]); !seen[k] {
				seen[k] = true
				count[k]++
			}
		}
	}
	need := max(2, (len(pages)*6+9)/10)
	for pi, p := range pages {
		drop := map[int]bool{}
		for _, i := range edges(p) {
			if count[edgeKey(p[i])] >= need {
				drop[i] = true
			}
		}
		if len(drop) == 0 {
			continue
		}
		kept := p[:0]
		for i, l := range p {
			if !drop[i] {
				kept = append(kept, l)
			}
		}
		pages[pi] = tidy(kept)
	}
}

// edgeKey normalizes a header or footer line: case, spacing and digits
// (page numbers) do not matter.
func edgeKey(l string) string {
	var b strings.Builder
	for _, f := range strings.Fields(strings.ToLower(l)) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		for _, r := range f {
			if unicode.IsDigit(r) {
				r = '#'
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// dehyphenate joins a word broken across a line end: "retrie-" followed
// by "val: a chunk" becomes "retrieval:" and "a chunk". A line emptied by
// the move is removed.
func dehyphenate(lines []string) []string {
	for i := 0; i+1 < len(lines); i++ {
		l := lines[i]
		var cut int
		switch {
		case strings.HasSuffix(l, "-"):
			cut = 1
		case strings.HasSuffix(l, "\u00ad"): // soft hyphen
			cut = 2
		default:
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(l[:len(l)-cut])
		next := strings.TrimLeft(lines[i+1], " \t")
		first, _ := utf8.DecodeRuneInString(next)
		if !unicode.IsLetter(before) || !unicode.IsLower(first) {
			continue
		}
		word, rest, _ := strings.Cut(next, " ")
		lines[i] = l[:len(l)-cut] + word
		if rest = strings.TrimSpace(rest); rest != "" {
			lines[i+1] = rest
		} else {
			lines = append(lines[:i+1], lines[i+2:]...)
		}
	}
	return lines
}

// title is the Info Title unless it is empty or a file name, else the
// first line of text.
func title(info, text string) string {
	t := md.Collapse(md.Clean(info))
	t = strings.TrimPrefix(t, "Microsoft Word - ")
	low := strings.ToLower(t)
	for _, ext := range []string{".doc", ".docx", ".odt", ".pdf", ".rtf", ".tex", ".txt", ".indd", ".ps", ".dvi"} {
		if strings.HasSuffix(low, ext) {
			t = ""
		}
	}
	if low == "untitled" || low == "title" {
		t = ""
	}
	if t == "" {
		t = md.FirstLine(text, 200)
	}
	return t
}

// isoDate turns a PDF date ("D:20240501120000+02'00'") into RFC 3339;
// anything else (pdfinfo -isodates output already is) is kept as it is.
func isoDate(s string) string {
	d, ok := strings.CutPrefix(s, "D:")
	if !ok {
		return s
	}
	d = strings.NewReplacer("'", "", " ", "").Replace(d)
	digits := 0
	for digits < len(d) && d[digits] >= '0' && d[digits] <= '9' {
		digits++
	}
	if digits < 4 || digits > 14 {
		return s
	}
	full := d[:digits] + "0101000000"[max(0, digits-4):] // pad to YYYYMMDDHHmmSS
	zone := d[digits:]
	layout := "20060102150405"
	switch {
	case zone == "" || zone == "Z" || strings.HasPrefix(zone, "Z"):
		full += "Z"
		layout += "Z07:00"
	case len(zone) >= 5:
		full += zone[:3] + ":" + zone[3:5]
		layout += "Z07:00"
	case len(zone) == 3:
		full += zone + ":00"
		layout += "Z07:00"
	}
	t, err := time.Parse(layout, full)
	if err != nil {
		return s
	}
	return t.Format(time.RFC3339)
}
