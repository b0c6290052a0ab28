package chunk

import (
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// goldmark parses the inline markup of every paragraph, character by
// character, making a node of every run of text: two thirds of its time on
// the scale benchmark's notes. The chunker reads a paragraph's inline nodes
// only for its links, code spans, raw HTML and #tags (collectLinks), and a
// paragraph without any '[', ']', '<', '`' or '#' has none of them: it is
// only its lines. Such a paragraph — at the top level, in a list item or in
// a block quote — becomes a plainParagraph, which goldmark takes for raw
// text and does not parse further (nor turns into a TextBlock in a tight
// list: the chunker reads both alike); everything else, and every tree
// the chunker builds from them, is as before (TestPlainParagraphsChunkTheSame
// compares the documents chunked with and without the shortcut).

// plainParagraph is a paragraph whose inline markup is left unparsed.
type plainParagraph struct{ ast.Paragraph }

// IsRaw makes goldmark leave the paragraph's inline markup unparsed.
func (*plainParagraph) IsRaw() bool { return true }

// plainParagraphs is the paragraph transformer that makes plain
// paragraphs; it runs after goldmark's link reference definitions.
type plainParagraphs struct{}

const plainPriority = 1000

// The same holds of a paragraph whose only such bytes are #tags and
// well-formed wikilinks — the prose of most notes ("See [[Note]]." and a
// line of tags): collectLinks finds wikilinks in a block's lines, not its
// nodes, and #tags in its text nodes, which for such a paragraph cover
// every byte of its lines but the whitespace goldmark trims; for a
// plainParagraph it takes the lines as its text (linkScanner.block).
// Where the brackets could be anything else — a bracket outside a
// wikilink, a wikilink followed by "(" or "[" (a Markdown link around it)
// — or where a '#' could be in a node other than text (code spans, raw
// HTML and autolinks, escapes, entities), goldmark parses it as before. A
// link reference definition elsewhere in the note may make goldmark see a
// shortcut link inside a wikilink's brackets ("[[a]]" and "[a]: a.md"), but
// the scanner drops a Markdown link inside a wikilink, so that changes
// nothing.

// plainText reports whether a paragraph line has nothing collectLinks
// reads in inline nodes other than text: no '<', '`', '\\' or '&', and
// every '[' and ']' part of a wikilink (optionally an embed) that is not
// followed by '(' or '['.
func plainText(line []byte) bool {
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '<', '`', '\\', '&', ']':
			return false
		case '[':
			s, e := findWikilink(line, i, len(line))
			if s != i || e < len(line) && (line[e] == '(' || line[e] == '[') {
				return false
			}
			i = e - 1
		}
	}
	return true
}

func (plainParagraphs) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	parent := node.Parent()
	lines := node.Lines()
	if parent == nil || lines.Len() == 0 {
		return
	}
	src := reader.Source()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		if !plainText(src[seg.Start:seg.Stop]) {
			return
		}
	}
	// Closing at a line that may underline it: goldmark may yet make it a
	// setext heading.
	if line, _ := reader.PeekLine(); setextLike(line) {
		return
	}
	// Trimmed as goldmark's paragraph parser does when it closes a
	// paragraph (it does not close one a transformer has replaced).
	for i := 0; i < lines.Len(); i++ {
		l := lines.At(i)
		lines.Set(i, l.TrimLeftSpace(src))
	}
	last := lines.At(lines.Len() - 1)
	lines.Set(lines.Len()-1, last.TrimRightSpace(src))
	p := &plainParagraph{}
	p.SetLines(lines)
	p.SetBlankPreviousLines(node.HasBlankPreviousLines())
	parent.ReplaceChild(parent, node, p)
}

// setextLike reports whether line, past up to three spaces, starts with
// '=' or '-'.
func setextLike(line []byte) bool {
	for i := 0; i < len(line) && i <= 3; i++ {
		switch line[i] {
		case ' ':
			continue
		case '=', '-':
			return true
		}
		return false
	}
	return false
}
