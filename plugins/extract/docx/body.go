package docx

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/ragd/ragd/plugins/extract/internal/md"
)

// body streams word/document.xml into Markdown.
type body struct {
	ctx    context.Context
	st     *styles
	w      md.Writer
	paras  []*para  // open paragraphs (a text box nests one in another)
	tables []*table // open tables (tables nest in cells)
	inRun  int
	inText bool

	counters map[string]*[9]int // numId -> items seen per level
	widths   [9]int             // marker width of the last item per level
	lastList bool               // the previous block was a list item

	title, firstHeading string
	tokens              int
}

type para struct {
	text    strings.Builder
	style   string
	num     string
	ilvl    int
	outline int // w:outlineLvl + 1, 0 if none
}

type table struct {
	rows   [][]string
	cell   *strings.Builder // open cell, nil between cells
	span   int              // gridSpan of the open cell
	inCell bool
}

// word reports whether n is in a WordprocessingML namespace (transitional
// or strict).
func word(n xml.Name) bool {
	return strings.HasSuffix(n.Space, "wordprocessingml/2006/main") || strings.HasSuffix(n.Space, "wordprocessingml/main")
}

func (b *body) run(d *xml.Decoder) error {
	b.counters = map[string]*[9]int{}
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if b.tokens++; b.tokens%8192 == 0 {
			if err := b.ctx.Err(); err != nil {
				return err
			}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if err := b.start(d, t); err != nil {
				return err
			}
		case xml.EndElement:
			b.end(t)
		case xml.CharData:
			if b.inText && len(b.paras) > 0 {
				b.paras[len(b.paras)-1].text.Write(t)
			}
		}
	}
	if b.title == "" {
		b.title = b.firstHeading
	}
	return nil
}

func (b *body) start(d *xml.Decoder, t xml.StartElement) error {
	local := t.Name.Local
	if strings.Contains(t.Name.Space, "markup-compatibility") && local == "Fallback" {
		return d.Skip() // duplicate of the mc:Choice content
	}
	if local == "t" && strings.HasSuffix(t.Name.Space, "/math") {
		b.inText = true // Office Math text
		return nil
	}
	if !word(t.Name) {
		return nil
	}
	p := b.para()
	switch local {
	case "del", "moveFrom", "pPrChange", "rPrChange", "sectPrChange", "tblPrChange", "trPrChange", "tcPrChange":
		return d.Skip() // revision history, not the current text
	case "p":
		b.paras = append(b.paras, &para{})
	case "pStyle":
		if p != nil {
			p.style = attr(t, "val")
		}
	case "numId":
		if p != nil {
			p.num = attr(t, "val")
		}
	case "ilvl":
		if p != nil {
			p.ilvl, _ = strconv.Atoi(attr(t, "val"))
		}
	case "outlineLvl":
		if n, err := strconv.Atoi(attr(t, "val")); err == nil && n >= 0 && n < 6 && p != nil {
			p.outline = n + 1
		}
	case "r":
		b.inRun++
	case "t":
		b.inText = true
	case "tab", "ptab":
		b.write("\t")
	case "br", "cr":
		b.write("\n")
	case "noBreakHyphen":
		b.write("-")
	case "tbl":
		b.tables = append(b.tables, &table{})
	case "tr":
		if tb := b.table(); tb != nil {
			tb.rows = append(tb.rows, nil)
		}
	case "tc":
		if tb := b.table(); tb != nil {
			tb.cell, tb.span, tb.inCell = &strings.Builder{}, 1, true
		}
	case "gridSpan":
		if tb := b.table(); tb != nil {
			if n, err := strconv.Atoi(attr(t, "val")); err == nil && n > 1 && n < 64 {
				tb.span = n
			}
		}
	}
	return nil
}

func (b *body) end(t xml.EndElement) {
	local := t.Name.Local
	if local == "t" {
		b.inText = false
		return
	}
	if !word(t.Name) {
		return
	}
	switch local {
	case "r":
		b.inRun--
	case "p":
		if n := len(b.paras); n > 0 {
			p := b.paras[n-1]
			b.paras = b.paras[:n-1]
			b.paragraph(p)
		}
	case "tc":
		if tb := b.table(); tb != nil && tb.inCell && len(tb.rows) > 0 {
			r := &tb.rows[len(tb.rows)-1]
			*r = append(*r, tb.cell.String())
			for range tb.span - 1 {
				*r = append(*r, "")
			}
			tb.cell, tb.inCell = nil, false
		}
	case "tbl":
		if n := len(b.tables); n > 0 {
			tb := b.tables[n-1]
			b.tables = b.tables[:n-1]
			b.emitTable(tb)
		}
	}
}

// para returns the innermost open paragraph, or nil.
func (b *body) para() *para {
	if n := len(b.paras); n > 0 {
		return b.paras[n-1]
	}
	return nil
}

// table returns the innermost open table, or nil.
func (b *body) table() *table {
	if n := len(b.tables); n > 0 {
		return b.tables[n-1]
	}
	return nil
}

// write appends s to the open paragraph when inside a run.
func (b *body) write(s string) {
	if p := b.para(); p != nil && b.inRun > 0 {
		p.text.WriteString(s)
	}
}

// paragraph writes a finished paragraph: into the open table cell, or as
// a heading, list item or paragraph.
func (b *body) paragraph(p *para) {
	text := p.text.String()
	if tb := b.table(); tb != nil && tb.inCell {
		if strings.TrimSpace(text) != "" {
			if tb.cell.Len() > 0 {
				tb.cell.WriteByte(' ')
			}
			tb.cell.WriteString(text)
		}
		return
	}
	if strings.TrimSpace(text) == "" {
		return
	}
	level := p.outline
	if level == 0 {
		level = b.st.heading(p.style)
	}
	if level > 0 {
		h := md.Heading(level, text)
		if b.title == "" && b.st.isTitle(p.style) {
			b.title = md.Collapse(text)
		}
		if b.firstHeading == "" {
			b.firstHeading = md.Collapse(text)
		}
		b.w.Block(h)
		b.lastList = false
		return
	}
	num, ilvl := p.num, p.ilvl
	if num == "" {
		num, ilvl = b.st.styleNum(p.style)
	}
	if num != "" && num != "0" {
		b.listItem(num, min(max(ilvl, 0), 8), text)
		return
	}
	b.w.Block(lines(text, "", "")...)
	b.lastList = false
}

// listItem writes one list item at level ilvl of numbering num.
func (b *body) listItem(num string, ilvl int, text string) {
	c := b.counters[num]
	if c == nil {
		c = new([9]int)
		b.counters[num] = c
	}
	c[ilvl]++
	for l := ilvl + 1; l < len(c); l++ {
		c[l] = 0
	}
	marker := "- "
	if ordered, start := b.st.ordered(num, ilvl); ordered {
		marker = strconv.Itoa(start+c[ilvl]-1) + ". "
	}
	indent := 0
	for l := range ilvl {
		indent += max(b.widths[l], 2)
	}
	b.widths[ilvl] = len(marker)
	pad := strings.Repeat(" ", indent)
	if b.lastList {
		b.w.Tight()
	}
	b.w.Block(lines(text, pad+marker, pad+strings.Repeat(" ", len(marker)))...)
	b.lastList = true
}

// emitTable writes a finished table, or folds it into an enclosing cell.
func (b *body) emitTable(tb *table) {
	if outer := b.table(); outer != nil && outer.inCell {
		for _, r := range tb.rows {
			for _, c := range r {
				if strings.TrimSpace(c) != "" {
					outer.cell.WriteString(" " + c)
				}
			}
		}
		return
	}
	cols := 0
	for _, r := range tb.rows {
		cols = max(cols, len(r))
	}
	b.lastList = false
	if cols <= 1 {
		for _, r := range tb.rows {
			for _, c := range r {
				b.w.Block(lines(c, "", "")...)
			}
		}
		return
	}
	b.w.Block(md.Table(tb.rows)...)
}

// lines splits paragraph text at line breaks, escapes each line and puts
// first before the first line and rest before the others.
func lines(text, first, rest string) []string {
	var out []string
	for l := range strings.SplitSeq(text, "\n") {
		l = md.EscapeLine(strings.TrimRight(l, " \t"))
		if l == "" {
			continue
		}
		if len(out) == 0 {
			out = append(out, first+l)
		} else {
			out = append(out, rest+l)
		}
	}
	return out
}

func attr(t xml.StartElement, local string) string {
	for _, a := range t.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
