package chunk

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// checkPlainSame chunks src with and without the plain-paragraph shortcut
// (plainParagraphs) and fails t unless the documents are the same.
func checkPlainSame(t *testing.T, src []byte, opt Options) {
	t.Helper()
	want, werr := markdownWith(htmlParser, src, opt)
	got, gerr := markdownWith(mdParser, src, opt)
	if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("chunking %q with plain paragraphs:\n got %+v (%v)\nwant %+v (%v)", src, got, gerr, want, werr)
	}
}

// TestPlainParagraphsChunkTheSame: leaving the inline markup of plain
// top-level paragraphs unparsed changes no document the chunker makes, on
// the testdata notes, notes assembled from fragments full of setext
// underlines, lists, tables, quotes, markup, wikilinks and #tags, and the
// notes of obsidian-hub and obsidian-help-en (../shared/vaults, when
// present).
func TestPlainParagraphsChunkTheSame(t *testing.T) {
	files, _ := globNotes()
	for _, v := range []string{"obsidian-hub", "obsidian-help-en"} {
		_ = filepath.WalkDir(filepath.Join("..", "..", "..", "shared", "vaults", v), func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
				files = append(files, p)
			}
			return nil
		})
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checkPlainSame(t, src, Options{})
	}
	frags := []string{"plain words here\n", "more plain text\nover two lines\n", "Setext\n===\n", "Sub\n---\n", "  ---\n",
		"=\n", "- item\n", "- item\n\n  continued\n", "1. one\n", "> quoted\n", "| a | b |\n|---|---|\n", "|x|\n",
		"# Head\n", "text with [[Link]]\n", "a `code` span\n", "<b>x</b>\n", "tag #t here\n", "\n", "\n\n", "   \n",
		"    indented code\n", "```\nfence\n```\n", "***\n", "[ref]: http://x\n", "x  \ny\n", "a\\\nb\n", "&amp; and *em*\n",
		"\t tabbed\n", "trailing   \n", "<!-- c -->\n", "- [ ] task\n", "1) x\n---\n", "para\n    not code\n",
		"See [[Note]] and ![[Pic.png]]. #tag #a/b\n", "#seedling #t_1\n", "x [[A|b]] y #c-d\n", "[[A]](x.md) #t\n",
		"[[A]][b] #t\n", "[b]: /x.md\n", "[[A]]] #t\n", "[[a\n", "a]] #x\n", "*#em* _#u_ ~~#s~~\n",
		"[[Note#Head]] #h\n", "[[B]]#t #1 (#p)\n", "\\#esc &#35;x #y\n", "`#c` #d\n", "<#x> #y\n", "#t\n===\n",
		"#t\n---\n", "[[x]]: y\n", "- see [[A]] #t\n", "  - nested [[B]] #n\n", "> quote [[C]] #q\n", "1. x [[D]]\n",
		"-\t[[E]] tab #e\n", "* [ ] task [[F]] #todo\n", "- a\n\n- loose #l\n", ">\t- [[G]]\n", "  lazy [[H]] #z\n",
		"[[a]] #t\n", "[a]: a.md\n", "![[a]] x #t\n", "[a|b]: a.md\n"}
	rng := rand.New(rand.NewPCG(13, 14))
	for i := range 3000 {
		var b strings.Builder
		if rng.IntN(4) == 0 {
			b.WriteString("---\ntitle: T\n---\n")
		}
		for range 1 + rng.IntN(10) {
			b.WriteString(frags[rng.IntN(len(frags))])
		}
		src := b.String()
		if rng.IntN(5) == 0 {
			src = strings.ReplaceAll(src, "\n", "\r\n")
		}
		checkPlainSame(t, []byte(src), []Options{{}, {ChildChars: 16}, {ChildChars: 100, ChildOverlap: 30, ParentChars: 150}}[i%3])
	}
}

func FuzzPlainParagraphs(f *testing.F) {
	addSeeds(f)
	for _, s := range []string{"See [[Note]] and ![[Pic]]. #tag #a/b\nmore #c\n", "[[A]](x) #t\n\n[b]: /x\n[[b]] #u\n",
		"x *[[a]]* #b_c\n#d\n===\n", "a [[b]]] c #d\n"} {
		f.Add([]byte(s), uint16(0))
	}
	f.Fuzz(func(t *testing.T, src []byte, n uint16) {
		if !utf8.Valid(src) {
			return
		}
		checkPlainSame(t, src, fuzzOptions(n))
	})
}

// TestPlainParagraphsTaken: the shortcut is taken where it should be — a
// paragraph of prose with wikilinks and #tags, at the top level and in a
// list — and not where goldmark's nodes differ from the lines.
func TestPlainParagraphsTaken(t *testing.T) {
	for _, tc := range []struct {
		src   string
		plain int
	}{
		{"See [[Note]] and ![[Pic.png]]. #tag\n", 1},
		{"- item with [[Link|alias]] #t\n- plain item\n", 2},
		{"> quoted [[Q]]\n", 1},
		{"a [link](x.md)\n", 0},
		{"[[A]](x.md)\n", 0},
		{"code `#x` [[A]]\n", 0},
		{"[[A]]\n\n[A]: a.md\n", 1},
		{"a ]] b\n", 0},
	} {
		root := mdParser.Parse(text.NewReader([]byte(tc.src)))
		n := 0
		_ = ast.Walk(root, func(n2 ast.Node, entering bool) (ast.WalkStatus, error) {
			if _, ok := n2.(*plainParagraph); ok && entering {
				n++
			}
			return ast.WalkContinue, nil
		})
		if n != tc.plain {
			t.Errorf("%q: %d plain paragraphs, want %d", tc.src, n, tc.plain)
		}
	}
}
