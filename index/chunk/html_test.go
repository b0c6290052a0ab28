package chunk

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// stockParser is goldmark's parser as the chunker used it before its raw
// HTML parsers were replaced.
var stockParser = goldmark.New(goldmark.WithExtensions(extension.Strikethrough)).Parser()

// htmlParser is the chunker's parser without the plain-paragraph shortcut
// (which leaves paragraphs' inline markup unparsed: plain.go), to compare
// trees with goldmark's.
var htmlParser = newMarkdownParser(false)

// dumpTree writes every node of the tree goldmark parses src into: its
// kind, position, lines or segments and flags, so two trees that dump the
// same are the same for the chunker.
func dumpTree(p parser.Parser, src []byte) string {
	root := p.Parse(text.NewReader(src))
	var b strings.Builder
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			b.WriteString(")")
			return ast.WalkContinue, nil
		}
		fmt.Fprintf(&b, "(%s@%d", n.Kind(), n.Pos())
		if n.Type() == ast.TypeBlock {
			for i := 0; i < n.Lines().Len(); i++ {
				fmt.Fprintf(&b, " L%v", n.Lines().At(i))
			}
		}
		switch n := n.(type) {
		case *ast.Text:
			fmt.Fprintf(&b, " %v %t %t %t", n.Segment, n.SoftLineBreak(), n.HardLineBreak(), n.IsRaw())
		case *ast.RawHTML:
			for i := 0; i < n.Segments.Len(); i++ {
				fmt.Fprintf(&b, " S%v", n.Segments.At(i))
			}
		case *ast.HTMLBlock:
			fmt.Fprintf(&b, " type%d %t %v", n.HTMLBlockType, n.HasClosure(), n.ClosureLine)
		case *ast.Heading:
			fmt.Fprintf(&b, " h%d", n.Level)
		case *ast.Link:
			fmt.Fprintf(&b, " %q %q", n.Destination, n.Title)
		case *ast.AutoLink:
			fmt.Fprintf(&b, " %q", n.URL(src))
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// htmlPieces make up the generated notes of TestHTMLParsersMatchGoldmark:
// tags that match and tags that almost do, over one line and several.
var htmlPieces = []string{
	"<a href=\"x\">", "</a>", "<br>", "<br/>", "<br />", "<img src=x.png alt='a > b'>", "<span\tclass=c>",
	"<div>", "</div>", "<DIV class=\"x\">", "<pre>", "<script>", "<style>", "<textarea>", "</ pre>",
	"<iframe src=\"https://e.x/\" allowfullscreen></iframe>", "<h1>", "<h7>", "<custom-tag>", "<x-1 a=b>",
	"<a href=\"x\n\">", "<a\nhref=x>", "<a href=\n'x'>", "<a b='c\nd'>", "<a b=c d>", "<a b =c>", "<a b= c/>",
	"<a b=\"c\"d>", "<a b=>", "<a b=`c`>", "<a =b>", "<a _:.-x=1>", "<a/ >", "<a/", "<a", "</a\n>",
	"</a b>", "</1>", "<1a>", "<-a>", "<!-- c -->", "<!-- c\n -->", "<?php x ?>", "<!DOCTYPE html>",
	"<![CDATA[ x ]]>", "<https://example.com>", "<me@example.com>", "a < b", "<", "<>", "< a>", "<a\r\n>",
	"<a b\r\nc>", "<abbr title=\"x\">", "<a href=x/>", "<a href=x/ >", "<u>", "</u>", "<a\t>", "<a  b  =  \"c\"  >",
	"<a title=\"é\">", "<a b=日本>", "<a b='ü\n'>", "<日本>", "</é>", "<a é>",
	"<span class=\"x\">text</span>", "</a/>", "</a x>", "</ a >", "</span\t>", "<span>  ", "<span/>", "<a b=c>\t",
	"<spanverylongtagnamebeyondsixteen x=1>", "<blockquotex>", "</blockquote x>",
	"text", "**bold**", "`code <a>`", "[link](<x y>)", "\\<a>", "&lt;a&gt;",
}

var htmlLineStarts = []string{"", "", "", " ", "   ", "    ", "\t", "> ", "- ", "1. ", "  - ", "# ", "```\n"}

func genHTMLNote(r *rand.Rand) []byte {
	var b strings.Builder
	for range 1 + r.IntN(12) {
		b.WriteString(htmlLineStarts[r.IntN(len(htmlLineStarts))])
		for range 1 + r.IntN(4) {
			b.WriteString(htmlPieces[r.IntN(len(htmlPieces))])
			if r.IntN(3) == 0 {
				b.WriteString(" ")
			}
		}
		switch r.IntN(5) {
		case 0:
			b.WriteString("\n\n")
		case 1:
			b.WriteString("\r\n")
		case 2:
		default:
			b.WriteString("\n")
		}
	}
	return []byte(b.String())
}

// TestHTMLParsersMatchGoldmark checks that the chunker's parser, with its
// own raw HTML parsers, gives goldmark's tree node for node: on generated
// notes full of tags, the testdata notes and, when present, every eighth
// note of obsidian-hub (../shared/vaults/obsidian-hub; all of them with
// RAGD_HUB_ALL=1).
func TestHTMLParsersMatchGoldmark(t *testing.T) {
	var notes [][]byte
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		notes = append(notes, genHTMLNote(r))
	}
	for _, p := range htmlPieces {
		notes = append(notes, []byte(p), []byte(p+"\n"), []byte("x "+p+" y\n"), []byte("   "+p+"\nz\n"))
	}
	files, _ := filepath.Glob("testdata/*.md")
	hub := filepath.Join("..", "..", "..", "shared", "vaults", "obsidian-hub")
	every := 8
	if os.Getenv("RAGD_HUB_ALL") != "" {
		every = 1
	}
	seen := 0
	if err := filepath.WalkDir(hub, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			if seen%every == 0 {
				files = append(files, p)
			}
			seen++
		}
		return err
	}); err != nil {
		t.Logf("obsidian-hub not available (%v): generated and testdata notes only", err)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		notes = append(notes, src)
	}
	for _, src := range notes {
		if want, got := dumpTree(stockParser, src), dumpTree(htmlParser, src); got != want {
			t.Fatalf("trees differ for %q:\ngoldmark %s\nours     %s", src, want, got)
		}
	}
}

func FuzzHTMLParsers(f *testing.F) {
	for _, p := range htmlPieces {
		f.Add([]byte(p))
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 50 {
		f.Add(genHTMLNote(r))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if !utf8.Valid(src) {
			return // Markdown refuses it before parsing
		}
		if want, got := dumpTree(stockParser, src), dumpTree(htmlParser, src); got != want {
			t.Fatalf("trees differ for %q:\ngoldmark %s\nours     %s", src, want, got)
		}
	})
}
