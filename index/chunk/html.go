package chunk

import (
	"bytes"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// goldmark's raw HTML parsers try regular expressions on every '<' that
// starts a line or a tag: the inline one through a rune reader over the
// rest of the paragraph, the block one with patterns that backtrack over
// the whole line. That was a tenth of the time of preparing a note. The
// parsers below decide the common cases by scanning the line once and hand
// everything else to goldmark's own parser, so the tree is the same node
// for node (TestHTMLParsersMatchGoldmark compares them).

// newMarkdownParser is goldmark's CommonMark parser with strikethrough, with
// the raw HTML parsers replaced by fastRawHTML and fastHTMLBlock, the link
// reference definitions looked for only where one may start
// (fastLinkRefs), and (plain) paragraphs without markup the chunker reads
// made plainParagraphs (plain.go).
func newMarkdownParser(plain bool) parser.Parser {
	blocks := parser.DefaultBlockParsers()
	for i, b := range blocks {
		if b.Value == parser.NewHTMLBlockParser() {
			blocks[i].Value = fastHTMLBlock{parser.NewHTMLBlockParser()}
		}
	}
	inlines := parser.DefaultInlineParsers()
	for i, p := range inlines {
		if p.Value == parser.NewRawHTMLParser() {
			inlines[i].Value = fastRawHTML{parser.NewRawHTMLParser()}
		}
	}
	transformers := parser.DefaultParagraphTransformers()
	for i, t := range transformers {
		if t.Value == parser.LinkReferenceParagraphTransformer {
			transformers[i].Value = fastLinkRefs{parser.LinkReferenceParagraphTransformer}
		}
	}
	if plain {
		transformers = append(transformers, util.Prioritized(plainParagraphs{}, plainPriority))
	}
	p := parser.NewParser(parser.WithBlockParsers(blocks...), parser.WithInlineParsers(inlines...),
		parser.WithParagraphTransformers(transformers...))
	return goldmark.New(goldmark.WithParser(p), goldmark.WithExtensions(extension.Strikethrough)).Parser()
}

// fastLinkRefs is goldmark's link reference definition transformer for a
// paragraph whose first line, past its indentation, opens with '[', the
// only paragraphs where a definition can start; goldmark's makes a block
// reader for every paragraph to find that out.
type fastLinkRefs struct{ parser.ParagraphTransformer }

func (t fastLinkRefs) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	if lines := node.Lines(); lines.Len() > 0 {
		seg := lines.At(0)
		if l := bytes.TrimLeft(seg.Value(reader.Source()), " \t"); len(l) > 0 && l[0] != '[' {
			return
		}
	}
	t.ParagraphTransformer.Transform(node, reader, pc)
}

// fastRawHTML is goldmark's inline raw HTML parser for a tag that opens or
// closes on one line; anything else (comments, declarations, a tag that
// goes on past the line) goes to goldmark's parser.
type fastRawHTML struct{ parser.InlineParser }

func (p fastRawHTML) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	line, seg := block.PeekLine()
	if seg.Padding != 0 || len(line) < 2 {
		return p.InlineParser.Parse(parent, block, pc)
	}
	var n int
	switch {
	case util.IsAlphaNumeric(line[1]):
		n = openTagLen(line)
	case line[1] == '/' && len(line) > 2 && util.IsAlphaNumeric(line[2]):
		n = closeTagLen(line)
	default:
		return p.InlineParser.Parse(parent, block, pc)
	}
	switch {
	case n < 0: // decided only by the lines after this one
		return p.InlineParser.Parse(parent, block, pc)
	case n == 0:
		return nil
	}
	node := ast.NewRawHTML()
	node.Segments.Append(text.NewSegment(seg.Start, seg.Start+n))
	block.Advance(n)
	return node
}

// Results of the tag scanners: the length of the tag, or one of these.
const (
	tagNo    = 0  // not a tag
	tagLines = -1 // the tag would go on past this line: ask goldmark
)

// openTagLen matches goldmark's open tag pattern ("<" tag name, attributes,
// optional "/", ">") at the start of line, a line of a paragraph with its
// newline: the length of the tag, tagNo, or tagLines when a line break or
// the line's end comes before the tag is decided. The pattern is
// unambiguous (a quote only opens a quoted value, '>' outside one only
// ends the tag), so one scan finds the same end as the expression.
func openTagLen(line []byte) int {
	i := 1
	if !isASCIILetter(line[i]) {
		return tagNo
	}
	for i < len(line) && (isASCIILetter(line[i]) || isDigit(line[i]) || line[i] == '-') {
		i++
	}
	for {
		ws := i
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) || line[i] == '\n' || line[i] == '\r' {
			return tagLines
		}
		switch c := line[i]; {
		case c == '>':
			return i + 1
		case c == '/':
			if i+1 < len(line) && line[i+1] == '>' {
				return i + 2
			}
			return tagNo
		case i == ws || !isAttrNameStart(c):
			return tagNo
		}
		for i++; i < len(line) && isAttrNameChar(line[i]); i++ {
		}
		j := i
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		if j == len(line) || line[j] == '\n' || line[j] == '\r' {
			return tagLines
		}
		if line[j] != '=' {
			continue // no value: the blanks start the next attribute or the end
		}
		for j++; j < len(line) && (line[j] == ' ' || line[j] == '\t'); j++ {
		}
		if j == len(line) || line[j] == '\n' || line[j] == '\r' {
			return tagLines
		}
		switch q := line[j]; q {
		case '"', '\'':
			k := j + 1
			for k < len(line) && line[k] != q && line[k] != '\n' && line[k] != '\r' {
				k++
			}
			if k == len(line) || line[k] != q {
				return tagLines
			}
			i = k + 1
		default:
			k := j
			for k < len(line) && isUnquotedValueChar(line[k]) {
				k++
			}
			if k == j {
				return tagNo
			}
			i = k
		}
	}
}

// closeTagLen matches goldmark's close tag pattern ("</" tag name, blanks,
// ">") like openTagLen.
func closeTagLen(line []byte) int {
	i := 2
	if !isASCIILetter(line[i]) {
		return tagNo
	}
	for i < len(line) && (isASCIILetter(line[i]) || isDigit(line[i]) || line[i] == '-') {
		i++
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	switch {
	case i == len(line) || line[i] == '\n' || line[i] == '\r':
		return tagLines
	case line[i] == '>':
		return i + 1
	}
	return tagNo
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
func isDigit(c byte) bool       { return '0' <= c && c <= '9' }

func isAttrNameStart(c byte) bool { return isASCIILetter(c) || c == '_' || c == ':' }
func isAttrNameChar(c byte) bool {
	return isAttrNameStart(c) || isDigit(c) || c == '.' || c == '-'
}

// isUnquotedValueChar: anything but blanks, controls and "'=<>`.
func isUnquotedValueChar(c byte) bool {
	switch c {
	case '"', '\'', '=', '<', '>', '`':
		return false
	}
	return c > 0x20
}

// fastHTMLBlock is goldmark's HTML block parser, which first rules out the
// lines that cannot start an HTML block without its regular expressions:
// a tag that is none of the kinds CommonMark lets start a block (not
// script, pre, style or textarea, not a block-level tag, and not alone on
// its line). Every other line goes to goldmark's parser.
type fastHTMLBlock struct{ parser.BlockParser }

func (b fastHTMLBlock) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, _ := reader.PeekLine()
	if !mayOpenHTMLBlock(line) {
		return nil, parser.NoChildren
	}
	return b.BlockParser.Open(parent, reader, pc)
}

// mayOpenHTMLBlock reports whether line might start an HTML block of any
// of CommonMark's seven kinds; false only when none can match.
func mayOpenHTMLBlock(line []byte) bool {
	i := 0
	for i < len(line) && i < 3 && line[i] == ' ' {
		i++
	}
	if i == len(line) || line[i] != '<' {
		return true // not the usual shape: let goldmark decide
	}
	i++
	if i == len(line) || line[i] == '!' || line[i] == '?' {
		return true // comments, declarations, CDATA, instructions
	}
	if line[i] == '/' {
		for i++; i < len(line) && line[i] == ' '; i++ {
		}
	}
	s := i
	for i < len(line) && (isASCIILetter(line[i]) || i > s && (isDigit(line[i]) || line[i] == '-')) {
		i++
	}
	if i == s {
		return false // no tag name: none of the kinds
	}
	var lower [16]byte
	if i-s > len(lower) {
		return mayBeLoneTag(line, s)
	}
	for k := s; k < i; k++ {
		lower[k-s] = line[k] | 0x20
	}
	if blockStartTags[string(lower[:i-s])] { // the conversion does not allocate
		return true
	}
	return mayBeLoneTag(line, s) // the seventh kind
}

// mayBeLoneTag reports whether line might be CommonMark's seventh kind of
// HTML block start: one open or close tag and nothing after it but blanks.
// name is where the tag's name starts (after "<", or "</" and spaces). The
// pattern is the same after "<" as after "</": goldmark excludes a close
// tag with attributes only when no space follows its '/'.
func mayBeLoneTag(line []byte, name int) bool {
	switch n := openTagLen(line[name-1:]); n {
	case tagLines:
		return true
	case tagNo:
		return false
	default:
		return isBlankRest(line[name-1+n:])
	}
}

// isBlankRest reports whether b holds only blanks and line breaks.
func isBlankRest(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return false
		}
	}
	return true
}

// blockStartTags are the tag names that start an HTML block whatever
// follows them on the line: CommonMark's kind 1 (script, pre, style,
// textarea) and kind 6 (its list of block-level tags, as goldmark has it).
var blockStartTags = map[string]bool{
	"script": true, "pre": true, "style": true, "textarea": true,

	"address": true, "article": true, "aside": true, "base": true, "basefont": true, "blockquote": true,
	"body": true, "caption": true, "center": true, "col": true, "colgroup": true, "dd": true, "details": true,
	"dialog": true, "dir": true, "div": true, "dl": true, "dt": true, "fieldset": true, "figcaption": true,
	"figure": true, "footer": true, "form": true, "frame": true, "frameset": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"head": true, "header": true, "hr": true, "html": true, "iframe": true, "legend": true, "li": true,
	"link": true, "main": true, "menu": true, "menuitem": true, "meta": true, "nav": true, "noframes": true,
	"ol": true, "optgroup": true, "option": true, "p": true, "param": true, "search": true, "section": true,
	"summary": true, "table": true, "tbody": true, "td": true, "tfoot": true, "th": true, "thead": true,
	"title": true, "tr": true, "track": true, "ul": true,
}
