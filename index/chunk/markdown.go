package chunk

import (
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// mdParser is safe for concurrent use: every Parse gets its own context.
var mdParser = newMarkdownParser(true)

// Markdown chunks a Markdown note: optional YAML frontmatter, then sections
// split at every top-level heading (ATX or Setext). It returns
// ErrInvalidUTF8 if src is not valid UTF-8; any other input, including
// malformed frontmatter, yields a Document.
func Markdown(src []byte, opt Options) (*Document, error) {
	return markdownWith(mdParser, src, opt)
}

// markdownWith is Markdown with parser p.
func markdownWith(p parser.Parser, src []byte, opt Options) (*Document, error) {
	if !utf8.Valid(src) {
		return nil, ErrInvalidUTF8
	}
	opt = opt.WithDefaults()
	doc := &Document{BodyStart: bomLen(src)}
	var tags tagSet
	if ys, ye, body, ok := findFrontmatter(src, doc.BodyStart); ok {
		doc.BodyStart = body
		doc.Meta, doc.Properties = parseFrontmatter(src[ys:ye])
		doc.applyMeta()
		doc.Links = frontmatterLinks(src, ys, ye, doc.Meta, &tags)
	}
	if !isBlank(src[doc.BodyStart:]) {
		sc := getScratch()
		li := newLineIndex(src, sc.starts[:0])
		sc.starts = li.starts
		blocks := markdownBlocks(p, src, doc.BodyStart, &li, &tags, doc, sc)
		b := builder{scratch: sc, doc: doc, src: src, li: &li, opt: opt}
		b.sections(blocks)
		sc.release()
	}
	doc.Tags = tags.list
	return doc, nil
}

// markdownBlocks parses the body src[base:] and returns its top-level blocks
// as trimmed line ranges of src. Every body line belongs to exactly one
// block (or is blank), so nothing goldmark does not represent is lost: a
// top-level block extends up to the line before the next one starts. Inline
// #tags are added to tags, links are appended to doc.Links (same walk) and
// the first H1 becomes the title if none is set.
func markdownBlocks(p parser.Parser, src []byte, base int, li *lineIndex, tags *tagSet, doc *Document, sc *scratch) []block {
	body := src[base:]
	root := p.Parse(text.NewReader(body))

	entries := sc.entries[:0]
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		s := nodeStart(n)
		if s < 0 {
			continue
		}
		l := li.line(base + s)
		if len(entries) > 0 && l <= entries[len(entries)-1].line {
			continue // shares a line with the previous block: merged into it
		}
		entries = append(entries, entry{l, n})
	}

	sc.entries = entries
	blocks := sc.blocks[:0]
	add := func(a, z int, n ast.Node) { // content lines a..z (0-based, inclusive)
		if a > z {
			return
		}
		s, e := trim(src, max(li.lineStart(a), base), li.lineEnd(z))
		if s >= e {
			return
		}
		blk := block{span: span{s: s, e: e}}
		switch n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			blk.lines = true
		case *ast.Paragraph, *plainParagraph:
			blk.lines = src[s] == '|' // a pipe table
		case *ast.List, *ast.Blockquote:
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if cs := nodeStart(c); cs >= 0 {
					if o := li.lineStart(li.line(base + cs)); o > s && o < e &&
						(len(blk.subs) == 0 || o > blk.subs[len(blk.subs)-1]) {
						blk.subs = append(blk.subs, o)
					}
				}
			}
		}
		blocks = append(blocks, blk)
	}
	cur := li.line(base)
	if base == len(src) {
		cur = li.count()
	}
	for i, en := range entries {
		next := li.count()
		if i+1 < len(entries) {
			next = entries[i+1].line
		}
		add(cur, en.line-1, nil)
		h, ok := en.n.(*ast.Heading)
		if !ok {
			add(en.line, next-1, en.n)
			cur = next
			continue
		}
		end := en.line
		if !isATXLine(src, max(li.lineStart(en.line), base)) && h.Lines().Len() > 0 {
			// Setext: the text lines plus the underline.
			end = li.line(base+h.Lines().At(h.Lines().Len()-1).Start) + 1
		}
		end = max(min(end, next-1), en.line)
		s, e := trim(src, max(li.lineStart(en.line), base), li.lineEnd(end))
		if s < e {
			t := headingText(h, body)
			blocks = append(blocks, block{span: span{s: s, e: e}, heading: true, level: h.Level, title: t})
			if h.Level == 1 && doc.Title == "" {
				doc.Title = t
			}
		}
		cur = end + 1
	}
	add(cur, li.count()-1, nil)

	sc.blocks = blocks
	doc.Links = collectLinks(root, body, base, tags, doc.Links, sc)
	return blocks
}

// nodeStart returns the body offset where block n starts, or -1.
func nodeStart(n ast.Node) int {
	s := n.Pos()
	if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
		if ls := n.Lines().At(0).Start; s < 0 || ls < s {
			s = ls
		}
	}
	if c := n.FirstChild(); c != nil && c.Type() == ast.TypeBlock {
		if cs := nodeStart(c); cs >= 0 && (s < 0 || cs < s) {
			s = cs
		}
	}
	return s
}

// isATXLine reports whether the line starting at off is an ATX heading line:
// up to three spaces, one to six '#', then whitespace or end of line.
func isATXLine(src []byte, off int) bool {
	i := off
	for i < len(src) && i-off < 3 && src[i] == ' ' {
		i++
	}
	n := 0
	for i < len(src) && src[i] == '#' {
		i++
		n++
	}
	return n >= 1 && n <= 6 && (i == len(src) || isSpace(src[i]))
}

// headingText returns the plain text of a heading: inline markup removed,
// wikilinks replaced by their alias or target, whitespace collapsed.
func headingText(h *ast.Heading, source []byte) string {
	var buf []byte
	buf = appendInlineText(buf, h, source)
	s := stripWikilinks(string(buf))
	return strings.Join(strings.Fields(s), " ")
}

func appendInlineText(buf []byte, n ast.Node, source []byte) []byte {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			v := c.Segment.Value(source)
			if _, code := n.(*ast.CodeSpan); !code && !c.IsRaw() {
				v = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(v)))
			}
			buf = append(buf, v...)
			if c.SoftLineBreak() || c.HardLineBreak() {
				buf = append(buf, ' ')
			}
		case *ast.String:
			buf = append(buf, c.Value...)
		case *ast.AutoLink:
			buf = append(buf, c.Label(source)...)
		case *ast.RawHTML:
		default:
			buf = appendInlineText(buf, c, source)
		}
	}
	return buf
}

// stripWikilinks rewrites [[target|alias]] to alias and [[target]] (or the
// embed form ![[target]]) to target.
func stripWikilinks(s string) string {
	if !strings.Contains(s, "[[") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "[[")
		if i < 0 {
			break
		}
		j := strings.Index(s[i+2:], "]]")
		if j < 0 {
			break
		}
		b.WriteString(strings.TrimSuffix(s[:i], "!"))
		inner := s[i+2 : i+2+j]
		if k := strings.LastIndexByte(inner, '|'); k >= 0 {
			inner = inner[k+1:]
		} else {
			inner = strings.TrimPrefix(inner, "#")
		}
		b.WriteString(inner)
		s = s[i+2+j+2:]
	}
	b.WriteString(s)
	return b.String()
}
