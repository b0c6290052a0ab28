package chunk

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// goldmark parses the inline markup of every paragraph, character by
// character, making a node of every run of text: two thirds of its time on
// the scale benchmark's notes. The chunker reads a paragraph's inline nodes
// only for its links, code spans, raw HTML and #tags (collectLinks), and a
// paragraph without any '[', ']', '<', '`' or '#' has none of them: it is
// only its lines. Such a paragraph at the top level of the note becomes a
// plainParagraph, which goldmark takes for raw text and does not parse
// further; everything else, and every tree the chunker builds from them,
// is as before (TestPlainParagraphsChunkTheSame compares the documents
// chunked with and without the shortcut).

// plainParagraph is a paragraph whose inline markup is left unparsed.
type plainParagraph struct{ ast.Paragraph }

// IsRaw makes goldmark leave the paragraph's inline markup unparsed.
func (*plainParagraph) IsRaw() bool { return true }

// plainParagraphs is the paragraph transformer that makes plain
// paragraphs; it runs after goldmark's link reference definitions.
type plainParagraphs struct{}

const plainPriority = 1000

// markupBytes are the bytes that may begin something collectLinks reads in
// a paragraph's inline nodes.
const markupBytes = "[]<`#"

func (plainParagraphs) Transform(node *ast.Paragraph, reader text.Reader, pc parser.Context) {
	parent := node.Parent()
	lines := node.Lines()
	if parent == nil || parent.Kind() != ast.KindDocument || lines.Len() == 0 {
		return
	}
	src := reader.Source()
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		if bytes.ContainsAny(src[seg.Start:seg.Stop], markupBytes) {
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
