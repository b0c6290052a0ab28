package html

import (
	"context"
	"strconv"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/ragd/ragd/plugins/extract/internal/md"
)

// brk marks a <br> in the inline buffer (source newlines are just space).
const brk = '\x1e'

// converter walks a parsed page and writes Markdown.
type converter struct {
	ctx    context.Context
	err    error
	w      md.Writer
	inline strings.Builder // text of the paragraph being collected
	title  string          // <title>
	h1     string          // first <h1>
	meta   map[string]string
	nodes  int
	lists  int // depth of ul/ol
}

// skipped elements never contribute text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Nav: true, atom.Svg: true, atom.Math: true, atom.Iframe: true,
	atom.Object: true, atom.Embed: true, atom.Canvas: true, atom.Form: true,
	atom.Button: true, atom.Select: true, atom.Textarea: true, atom.Input: true,
	atom.Dialog: true, atom.Audio: true, atom.Video: true, atom.Map: true,
}

// blocks are elements that end the paragraph before and after them.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true,
	atom.Main: true, atom.Header: true, atom.Footer: true, atom.Aside: true,
	atom.Figure: true, atom.Figcaption: true, atom.Address: true,
	atom.Details: true, atom.Summary: true, atom.Dl: true, atom.Dt: true,
	atom.Dd: true, atom.Center: true, atom.Fieldset: true, atom.Legend: true,
	atom.Hr: true, atom.Caption: true, atom.Body: true, atom.Html: true,
}

func (c *converter) convert(doc *html.Node) {
	c.meta = map[string]string{}
	if head := find(doc, func(n *html.Node) bool { return n.DataAtom == atom.Head }); head != nil {
		c.head(head)
	}
	if h := find(doc, func(n *html.Node) bool { return n.DataAtom == atom.Html }); h != nil {
		if l := attr(h, "lang"); l != "" {
			c.meta["lang"] = l
		}
	}
	root := find(doc, func(n *html.Node) bool {
		return n.Type == html.ElementNode && (n.DataAtom == atom.Main || attr(n, "role") == "main") && !hidden(n)
	})
	if root == nil {
		root = doc
	}
	c.node(root, false)
	c.flush()
}

// head reads <title> and <meta> from the document head.
func (c *converter) head(head *html.Node) {
	for n := range head.Descendants() {
		switch n.DataAtom {
		case atom.Title:
			if c.title == "" {
				c.title = md.Collapse(text(n))
			}
		case atom.Meta:
			key := strings.ToLower(attr(n, "name"))
			if key == "" {
				key = strings.ToLower(attr(n, "property"))
			}
			switch key {
			case "description", "author", "keywords", "og:title":
				if v := md.Collapse(attr(n, "content")); v != "" {
					c.meta[key] = v
				}
			}
		}
	}
}

// node converts n and its subtree; inArticle says whether an article,
// main or section encloses it.
func (c *converter) node(n *html.Node, inArticle bool) {
	if c.err != nil {
		return
	}
	if c.nodes++; c.nodes%4096 == 0 {
		if c.err = c.ctx.Err(); c.err != nil {
			return
		}
	}
	switch n.Type {
	case html.TextNode:
		c.inline.WriteString(n.Data)
		return
	case html.DocumentNode:
		c.children(n, inArticle)
		return
	case html.ElementNode:
	default:
		return
	}
	a := n.DataAtom
	if skipped[a] || a == atom.Head || hidden(n) {
		return
	}
	switch role := attr(n, "role"); role {
	case "navigation", "banner", "contentinfo", "search":
		return
	}
	switch a {
	case atom.Header, atom.Footer:
		if !inArticle {
			return
		}
	case atom.Article, atom.Main, atom.Section:
		inArticle = true
	}
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		c.flush()
		c.children(n, inArticle)
		t := md.Collapse(strings.ReplaceAll(c.takeInline(), string(brk), " "))
		if a == atom.H1 && c.h1 == "" {
			c.h1 = t
		}
		if h := md.Heading(int(n.Data[1]-'0'), t); h != "" {
			c.w.Block(h)
		}
	case atom.Br:
		c.inline.WriteRune(brk)
	case atom.Ul, atom.Ol, atom.Menu:
		c.list(n, inArticle)
	case atom.Blockquote:
		c.flush()
		c.w.Push("> ", "> ")
		c.children(n, inArticle)
		c.flush()
		c.w.Pop()
	case atom.Pre:
		c.pre(n)
	case atom.Table:
		c.table(n, inArticle)
	default:
		if blocks[a] {
			c.flush()
			c.children(n, inArticle)
			c.flush()
			return
		}
		c.children(n, inArticle)
	}
}

func (c *converter) children(n *html.Node, inArticle bool) {
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.node(ch, inArticle)
	}
}

// flush writes the collected inline text as a paragraph.
func (c *converter) flush() {
	var lines []string
	for seg := range strings.SplitSeq(c.takeInline(), string(brk)) {
		if s := md.EscapeLine(md.Collapse(seg)); s != "" {
			lines = append(lines, s)
		}
	}
	c.w.Block(lines...)
}

func (c *converter) takeInline() string {
	s := c.inline.String()
	c.inline.Reset()
	return s
}

// list converts ul/ol: each li is a container with its marker.
func (c *converter) list(n *html.Node, inArticle bool) {
	c.flush()
	num, ordered := 1, n.DataAtom == atom.Ol
	if s, err := strconv.Atoi(attr(n, "start")); err == nil && s >= 0 && s < 1e9 {
		num = s
	}
	first := c.lists == 0 // a nested list follows its item's text tightly
	c.lists++
	defer func() { c.lists-- }()
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.DataAtom != atom.Li {
			c.node(li, inArticle)
			continue
		}
		if hidden(li) {
			continue
		}
		marker := "- "
		if ordered {
			marker = strconv.Itoa(num) + ". "
			num++
		}
		c.flush()
		if !first {
			c.w.Tight()
		}
		first = false
		c.w.Push(marker, strings.Repeat(" ", len(marker)))
		before := c.w.Len()
		c.children(li, inArticle)
		c.flush()
		if c.w.Len() == before { // keep empty items so numbering reads right
			c.w.Block("")
		}
		c.w.Pop()
	}
	c.flush()
}

// pre writes a fenced code block with the preformatted text.
func (c *converter) pre(n *html.Node) {
	c.flush()
	code := strings.Trim(md.Clean(text(n)), "\n")
	if strings.TrimSpace(code) == "" {
		return
	}
	lang := language(n)
	if lang == "" {
		if ch := find(n, func(x *html.Node) bool { return x.DataAtom == atom.Code }); ch != nil {
			lang = language(ch)
		}
	}
	fence := md.Fence(code)
	lines := append([]string{fence + lang}, strings.Split(code, "\n")...)
	c.w.Block(append(lines, fence)...)
}

// table writes a pipe table; a one-column (layout) table becomes paragraphs.
func (c *converter) table(n *html.Node, inArticle bool) {
	c.flush()
	var rows [][]*html.Node
	var walk func(*html.Node)
	walk = func(x *html.Node) {
		for ch := x.FirstChild; ch != nil; ch = ch.NextSibling {
			switch ch.DataAtom {
			case atom.Thead, atom.Tbody, atom.Tfoot:
				walk(ch)
			case atom.Tr:
				var cells []*html.Node
				for td := ch.FirstChild; td != nil; td = td.NextSibling {
					if td.DataAtom == atom.Td || td.DataAtom == atom.Th {
						cells = append(cells, td)
					}
				}
				rows = append(rows, cells)
			case atom.Caption:
				c.node(ch, inArticle)
			}
		}
	}
	walk(n)
	cols := 0
	for _, r := range rows {
		cols = max(cols, len(r))
	}
	if cols <= 1 {
		for _, r := range rows {
			for _, td := range r {
				c.children(td, inArticle)
				c.flush()
			}
		}
		return
	}
	var cells [][]string
	for _, r := range rows {
		var row []string
		for _, td := range r {
			c.children(td, inArticle)
			row = append(row, md.Collapse(strings.ReplaceAll(c.takeInline(), string(brk), " ")))
		}
		cells = append(cells, row)
	}
	c.w.Block(md.Table(cells)...)
}

// language returns x from a "language-x" or "lang-x" class.
func language(n *html.Node) string {
	for f := range strings.FieldsSeq(attr(n, "class")) {
		for _, p := range []string{"language-", "lang-"} {
			if l, ok := strings.CutPrefix(f, p); ok && l != "" && !strings.ContainsAny(l, "`~") {
				return l
			}
		}
	}
	return ""
}

// hidden reports whether n is hidden from readers.
func hidden(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	for _, a := range n.Attr {
		switch a.Key {
		case "hidden":
			return true
		case "aria-hidden":
			if strings.EqualFold(a.Val, "true") {
				return true
			}
		case "style":
			s := strings.ToLower(strings.Join(strings.Fields(a.Val), ""))
			if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

// text returns all text under n, with <br> as a newline.
func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		switch {
		case d.Type == html.TextNode:
			b.WriteString(d.Data)
		case d.Type == html.ElementNode && d.DataAtom == atom.Br:
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// find returns the first node under (and including) n that matches, in
// document order, skipping hidden subtrees only for the caller's test.
func find(n *html.Node, match func(*html.Node) bool) *html.Node {
	if match(n) {
		return n
	}
	for d := range n.Descendants() {
		if match(d) {
			return d
		}
	}
	return nil
}
