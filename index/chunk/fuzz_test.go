package chunk

import (
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzOptions derives small, varied options from a fuzzer-chosen number so
// that splitting, overlap and parent capping are all exercised.
func fuzzOptions(n uint16) Options {
	if n == 0 {
		return Options{}
	}
	c := MinChildChars + int(n%300)
	return Options{
		ChildChars:   c,
		ChildOverlap: int(n/300%64) - 8, // includes negative (no overlap)
		ParentChars:  c + int(n/7%500),
	}
}

var fuzzSeeds = []string{
	"",
	"# A\n\ntext",
	"Title\n===\n\nbody\n\nSub\n---\nmore",
	"---\ntitle: x\ntags: [a, b]\n---\n# H\n\n```\n# not\n```\n",
	"---\n: : bad\n\t- [\n---\nbody",
	"\ufeff---\r\ntitle: x\r\n---\r\n# H\r\n\r\ntext\r\n",
	"# \n#\n##\n###### six\n####### seven",
	"a\n---\nb\n===\n- c\n  ---\n> d\n> ===",
	"京都駅から伏見稲荷までは約五分です。朝早く行くと人が少ないです。",
	"🙂🙃👍🏽👩‍👩‍👧🙂🙃👍🏽👩‍👩‍👧🙂🙃👍🏽👩‍👩‍👧🙂🙃👍🏽👩‍👩‍👧",
	"text\r# lone CR\r\n## h\rx",
	"    # indented code\n\t# tab code\n   # three-space heading",
	"[ref]: http://x\n# H\n[ref2]: /y\ntext",
	"* * *\n# A\n***\n<div>\n# no\n</div>\n",
	"[[A|B]] ![[c.png]] [m](M%20x.md#h) ![i](i.png) #t/x (#p) `[[no]]` <!-- [[no]] --> [[#H]] [[N#^b]]",
	"---\nup: \"[[Home]]\"\nrel: [\"[[A]]\", x]\nparent: [[U]]\ntags: [a, '#b/']\n---\n[[[x]]] [[a\\|b]] [r][] [r] [t][r]\n\n[r]: R.md\n",
	"[a](<b c.md> 'title') [x](y.md\n\"multi\nline\") [y](z.md (paren)) > [[q\n> [!note] [[In]] #c\n",
	"- [ ] [[Task]] #todo\n  > [x](#frag) [e](https://x/#y) ``[[no]]`` \\[[esc]] ![[[n]]]\n",
}

func addSeeds(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), uint16(0))
		f.Add([]byte(s), uint16(1234))
	}
	files, _ := globNotes()
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, uint16(0))
		f.Add(src, uint16(47))
		f.Add(src, uint16(9001))
	}
}

func FuzzMarkdown(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte, n uint16) {
		opt := fuzzOptions(n)
		doc, err := Markdown(src, opt)
		if !utf8.Valid(src) {
			if err != ErrInvalidUTF8 {
				t.Fatalf("invalid UTF-8 accepted: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkDoc(t, src, doc, opt, true)
	})
}

func FuzzPlainText(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte, n uint16) {
		opt := fuzzOptions(n)
		doc, err := PlainText(src, opt)
		if !utf8.Valid(src) {
			if err != ErrInvalidUTF8 {
				t.Fatalf("invalid UTF-8 accepted: %v", err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		checkDoc(t, src, doc, opt, false)
	})
}

// TestRandomDocuments assembles pseudo-random notes from realistic fragments
// and checks the invariants under several option sets.
func TestRandomDocuments(t *testing.T) {
	frags := []string{
		"# Title\n", "## Section [[Link|alias]]\n", "### Deep `code`\n", "Setext\n===\n", "Sub\n---\n",
		sentences(2) + "\n", sentences(9) + "\n", strings.Repeat("word ", 90) + "\n",
		"- item one. With a sentence.\n- item two\n  - nested\n", "1. first\n2. second\n\n   continued\n",
		"```go\n# not a heading\nfunc f() {}\n```\n", "```\n" + strings.Repeat("code line;\n", 60) + "```\n",
		"| a | b |\n|---|---|\n| 1 | 2 |\n", "> [!note] Callout\n> " + sentences(4) + "\n>\n> more\n",
		"<div>\n# html\n</div>\n", "***\n", "    indented code\n", "#tag #nested/tag text\n",
		strings.Repeat("漢字かな交じり文です。", 30) + "\n", strings.Repeat("🙂👩‍👩‍👧", 40) + "\n",
		"[ref]: http://example.com\n", "\n", "\n\n", "  \t\n",
		"See [[Note#H|alias]], ![[img.png]] and [md](Other%20Note.md#x).\n", "| [[A\\|B]] | #t |\n",
		"Tags: (#paren) #2024 #a/b/ `#code` <!-- [[hidden]] --> [[open\n", "![alt](pics/a%20b.png) [ext](https://x.org/#y)\n",
	}
	opts := []Options{{}, {ChildChars: 16}, {ChildChars: 100, ChildOverlap: 30, ParentChars: 150},
		{ChildChars: 300, ChildOverlap: -1, ParentChars: 300}, {ChildChars: 500, ChildOverlap: 200, ParentChars: 2000}}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 400 {
		var b strings.Builder
		if rng.IntN(3) == 0 {
			b.WriteString("---\ntags: [a, b]\ntitle: T\nup: \"[[Home]]\"\n---\n")
		}
		for range 1 + rng.IntN(12) {
			b.WriteString(frags[rng.IntN(len(frags))])
			if rng.IntN(2) == 0 {
				b.WriteString("\n")
			}
		}
		src := b.String()
		if rng.IntN(4) == 0 {
			src = strings.ReplaceAll(src, "\n", "\r\n")
		}
		if rng.IntN(6) == 0 {
			src = "\ufeff" + src
		}
		opt := opts[i%len(opts)]
		doc, err := Markdown([]byte(src), opt)
		if err != nil {
			t.Fatal(err)
		}
		checkDoc(t, []byte(src), doc, opt, true)
		doc, err = PlainText([]byte(src), opt)
		if err != nil {
			t.Fatal(err)
		}
		checkDoc(t, []byte(src), doc, opt, false)
	}
}
