package chunk

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
	"unicode/utf8"
)

// summary renders parents as "P L1-L3 [A > B]" and chunks as
// "L2-L3 [A > B] text" for compact expectations.
func summary(doc *Document) (parents, chunks []string) {
	for _, p := range doc.Parents {
		parents = append(parents, fmt.Sprintf("P L%d-L%d [%s]", p.LineStart, p.LineEnd, strings.Join(p.Heading, " > ")))
	}
	for _, c := range doc.Chunks {
		chunks = append(chunks, fmt.Sprintf("L%d-L%d [%s] %s", c.LineStart, c.LineEnd, strings.Join(c.Heading, " > "), c.Text))
	}
	return parents, chunks
}

func mustMarkdown(t *testing.T, src string, opt Options) *Document {
	t.Helper()
	doc, err := Markdown([]byte(src), opt)
	if err != nil {
		t.Fatalf("Markdown: %v", err)
	}
	checkDoc(t, []byte(src), doc, opt, true)
	return doc
}

// longEnough is a sentence with enough substance to be a section of its
// own; in TestMarkdownTable "§" stands for it.
const longEnough = "This sentence is long enough to stand on its own."

func TestMarkdownTable(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		opt     Options
		parents []string
		chunks  []string
	}{
		{name: "empty", src: ""},
		{name: "whitespace only", src: " \n\t\r\n\n"},
		{name: "bom only", src: "\ufeff\n"},
		{
			name:    "heading inside fenced code",
			src:     "# A\n\n```sh\n# not a heading\n## nor this\n```\n\n~~~\n# tilde\n~~~\n",
			parents: []string{"P L1-L10 [A]"},
			chunks:  []string{"L3-L10 [A] ```sh\n# not a heading\n## nor this\n```\n\n~~~\n# tilde\n~~~"},
		},
		{
			name:    "setext headings",
			src:     "Title\n=====\n\n§\n\nSub\n---\n\n§\n",
			parents: []string{"P L1-L4 [Title]", "P L6-L9 [Title > Sub]"},
			chunks:  []string{"L4-L4 [Title] §", "L9-L9 [Title > Sub] §"},
		},
		{
			name:    "multi-line setext heading",
			src:     "§\n\nTwo\nlines\n---\n§\n",
			parents: []string{"P L1-L1 []", "P L3-L6 [Two lines]"},
			chunks:  []string{"L1-L1 [] §", "L6-L6 [Two lines] §"},
		},
		{
			name:    "CRLF",
			src:     "# A\r\n\r\n§\r\nline two\r\n\r\n## B\r\n\r\n\r\n§\r\n",
			parents: []string{"P L1-L4 [A]", "P L6-L9 [A > B]"},
			chunks:  []string{"L3-L4 [A] §\r\nline two", "L9-L9 [A > B] §"},
		},
		{
			name:    "BOM without frontmatter",
			src:     "\ufeff# T\n\nx\n",
			parents: []string{"P L1-L3 [T]"},
			chunks:  []string{"L3-L3 [T] x"},
		},
		{
			name:    "heading path stack",
			src:     "§\n# A\n## B\n### C\n§\n## D\n§\n# E\n§\n#### F\n§",
			parents: []string{"P L1-L1 []", "P L2-L5 [A > B > C]", "P L6-L7 [A > D]", "P L8-L9 [E]", "P L10-L11 [E > F]"},
			chunks:  []string{"L1-L1 [] §", "L5-L5 [A > B > C] §", "L7-L7 [A > D] §", "L9-L9 [E] §", "L11-L11 [E > F] §"},
		},
		{
			name:    "inline markup stripped from headings",
			src:     "## The **big** [[Plan]]\n§\n## `code` and [link](http://x) ~~old~~ [[t|alias]] ![[img.png]] *a\\*b* &amp;\n§\n",
			parents: []string{"P L1-L2 [The big Plan]", "P L3-L4 [code and link old alias img.png a*b &]"},
			chunks:  []string{"L2-L2 [The big Plan] §", "L4-L4 [code and link old alias img.png a*b &] §"},
		},
		{
			name:    "headings in lists and quotes do not split",
			src:     "# A\n\n- item\n  # nested\n> # quoted\n\nafter\n",
			parents: []string{"P L1-L7 [A]"},
			chunks:  []string{"L3-L7 [A] - item\n  # nested\n> # quoted\n\nafter"},
		},
		{
			name:    "not headings",
			src:     "#hashtag at start\n\\# escaped §\n#\tx\n§\n",
			parents: []string{"P L1-L2 []", "P L3-L4 [x]"},
			chunks:  []string{"L1-L2 [] #hashtag at start\n\\# escaped §", "L4-L4 [x] §"},
		},
		{
			name:    "thematic break and html",
			src:     "a\n\n---\n\n<div>\n# not md heading\n</div>\n\nb",
			parents: []string{"P L1-L9 []"},
			chunks:  []string{"L1-L9 [] a\n\n---\n\n<div>\n# not md heading\n</div>\n\nb"},
		},
		// Retrieval units: no chunk is only headings, tags or links.
		{name: "only a heading", src: "# Just a title\n"},
		{name: "only headings", src: "# A\n## B\n\n### C\n"},
		{name: "only tags", src: "#coffee #espresso\n"},
		{name: "heading and tags", src: "# Coffee\n\n#coffee #espresso\n\n## Tags\n#drinks\n"},
		{name: "only an image and a comment", src: "# Gallery\n![[photo.png]]\n<!-- todo -->\n%% hidden %%\n"},
		{
			name:    "H1 then H2 then content",
			src:     "# Espresso Dialing In\n## Grind\nUse a finer grind when the shot runs sour and fast.\n",
			parents: []string{"P L1-L3 [Espresso Dialing In > Grind]"},
			chunks:  []string{"L3-L3 [Espresso Dialing In > Grind] Use a finer grind when the shot runs sour and fast."},
		},
		{
			name:    "trailing tags line",
			src:     "# Espresso\n§\n\n#coffee #espresso\n",
			parents: []string{"P L1-L4 [Espresso]"},
			chunks:  []string{"L2-L4 [Espresso] §\n\n#coffee #espresso"},
		},
		{
			name:    "tags section merges into the previous one",
			src:     "# Espresso\n§\n\n## Tags\n#coffee #espresso\n",
			parents: []string{"P L1-L5 [Espresso]"},
			chunks:  []string{"L2-L5 [Espresso] §\n\n## Tags\n#coffee #espresso"},
		},
		{
			name:    "tiny section between two",
			src:     "# A\n§\n## Status\nDone.\n## B\n§\n",
			parents: []string{"P L1-L4 [A]", "P L5-L6 [A > B]"},
			chunks:  []string{"L2-L4 [A] §\n## Status\nDone.", "L6-L6 [A > B] §"},
		},
		{
			name:    "tiny section merges forward when the previous is full",
			src:     "# A\n§ §\n## Status\nDone.\n## B\n§\n",
			opt:     Options{ChildChars: 110, ChildOverlap: -1},
			parents: []string{"P L1-L2 [A]", "P L3-L6 [A > B]"},
			chunks:  []string{"L2-L2 [A] § §", "L4-L6 [A > B] Done.\n## B\n§"},
		},
		{
			name:    "a note of one short sentence stays searchable",
			src:     "# Ramen\nBuy noodles.\n",
			parents: []string{"P L1-L2 [Ramen]"},
			chunks:  []string{"L2-L2 [Ramen] Buy noodles."},
		},
		{
			name:    "a map of content is searchable",
			src:     "# Coffee MOC\n- [[Espresso Dialing In]]\n- [[Pour Over]]\n- [[Grinders|grinders]]\n",
			parents: []string{"P L1-L4 [Coffee MOC]"},
			chunks:  []string{"L2-L4 [Coffee MOC] - [[Espresso Dialing In]]\n- [[Pour Over]]\n- [[Grinders|grinders]]"},
		},
		{
			name:    "a tiny links section merges",
			src:     "# Pour Over\n§\n## See also\n- [[Espresso]]\n",
			parents: []string{"P L1-L4 [Pour Over]"},
			chunks:  []string{"L2-L4 [Pour Over] §\n## See also\n- [[Espresso]]"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := mustMarkdown(t, strings.ReplaceAll(tc.src, "§", longEnough), tc.opt)
			parents, chunks := summary(doc)
			for i := range chunks {
				chunks[i] = strings.ReplaceAll(chunks[i], longEnough, "§")
			}
			if !slices.Equal(parents, tc.parents) {
				t.Errorf("parents:\n got %q\nwant %q", parents, tc.parents)
			}
			if !slices.Equal(chunks, tc.chunks) {
				t.Errorf("chunks:\n got %q\nwant %q", chunks, tc.chunks)
			}
		})
	}
}

func TestInvalidUTF8(t *testing.T) {
	for _, src := range []string{"\xff", "ok\n\xc3", "# T\n\xed\xa0\x80"} {
		if _, err := Markdown([]byte(src), Options{}); !errors.Is(err, ErrInvalidUTF8) {
			t.Errorf("Markdown(%q) err = %v", src, err)
		}
		if _, err := PlainText([]byte(src), Options{}); !errors.Is(err, ErrInvalidUTF8) {
			t.Errorf("PlainText(%q) err = %v", src, err)
		}
	}
}

func TestWithDefaults(t *testing.T) {
	tests := []struct{ in, want Options }{
		{Options{}, Options{1200, 150, 4000}},
		{Options{ChildChars: 100}, Options{100, 49, 4000}},
		{Options{ChildChars: 5, ChildOverlap: -1}, Options{16, 0, 4000}},
		{Options{ChildChars: 2000, ParentChars: 1000}, Options{2000, 150, 2000}},
		{Options{ChildChars: -3, ChildOverlap: 900, ParentChars: -1}, Options{1200, 599, 4000}},
	}
	for _, tc := range tests {
		if got := tc.in.WithDefaults(); got != tc.want {
			t.Errorf("%+v.WithDefaults() = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// sentences returns n distinct sentences of about 60 bytes each.
func sentences(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "Sentence number %03d talks about retrieval and chunking.", i)
	}
	return b.String()
}

func TestLongParagraphOverlap(t *testing.T) {
	para := sentences(40) // ~2300 bytes, one block
	src := "# Long\n\n" + para + "\n"
	opt := Options{ChildChars: 400, ChildOverlap: 80}
	doc := mustMarkdown(t, src, opt)
	if len(doc.Chunks) < 6 {
		t.Fatalf("got %d chunks, want >= 6", len(doc.Chunks))
	}
	for i, c := range doc.Chunks {
		if !strings.HasPrefix(c.Text, "Sentence number") || !strings.HasSuffix(c.Text, "chunking.") {
			t.Errorf("chunk %d not cut at sentence boundaries: %q", i, c.Text)
		}
		if c.LineStart != 3 || c.LineEnd != 3 {
			t.Errorf("chunk %d lines L%d-L%d, want L3-L3", i, c.LineStart, c.LineEnd)
		}
		if i > 0 {
			ov := doc.Chunks[i-1].End - c.Start
			if ov <= 0 || ov > 80 {
				t.Errorf("chunk %d overlap %d, want 1..80", i, ov)
			}
		}
	}
	// Without overlap the children tile the paragraph exactly.
	doc = mustMarkdown(t, src, Options{ChildChars: 400, ChildOverlap: -1})
	for i := 1; i < len(doc.Chunks); i++ {
		if gap := doc.Chunks[i].Start - doc.Chunks[i-1].End; gap != 1 {
			t.Errorf("chunk %d: gap %d, want exactly one space", i, gap)
		}
	}
}

func TestSentenceSplitPrefersSentenceOverWhitespace(t *testing.T) {
	para := strings.Repeat("Alpha beta gamma delta. ", 5) + strings.Repeat("x", 10) + " " + strings.Repeat("word ", 30)
	doc := mustMarkdown(t, para, Options{ChildChars: 160, ChildOverlap: -1})
	if got := doc.Chunks[0].Text; !strings.HasSuffix(got, "delta.") {
		t.Errorf("first chunk should end at the last sentence in the window: %q", got)
	}
}

func TestWhitespaceSplit(t *testing.T) {
	words := strings.Fields(strings.Repeat("lorem ipsum dolor sit amet consectetur adipiscing ", 30))
	src := strings.Join(words, " ")
	doc := mustMarkdown(t, src, Options{ChildChars: 100, ChildOverlap: 20})
	if len(doc.Chunks) < 10 {
		t.Fatalf("got %d chunks", len(doc.Chunks))
	}
	known := map[string]bool{}
	for _, w := range words {
		known[w] = true
	}
	for i, c := range doc.Chunks {
		for _, w := range strings.Fields(c.Text) {
			if !known[w] {
				t.Fatalf("chunk %d splits a word: %q in %q", i, w, c.Text)
			}
		}
	}
}

func TestRuneBoundarySplit(t *testing.T) {
	for _, tc := range []struct{ name, unit string }{
		{"CJK", "漢字仮名交じり文"},
		{"emoji", "🙂a🙃👍🏽b👩‍👩‍👧"},
		{"mixed", "aé漢🙂"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "# R\n\n" + strings.Repeat(tc.unit, 60) + "\n"
			for _, cc := range []int{16, 17, 33, 100} {
				opt := Options{ChildChars: cc, ChildOverlap: -1}
				doc := mustMarkdown(t, src, opt)
				// The chunks tile the text, but for pieces of emoji
				// without a letter, which are no retrieval unit.
				pos := strings.Index(src, tc.unit)
				for _, c := range doc.Chunks {
					if !utf8.ValidString(c.Text) {
						t.Fatalf("invalid UTF-8 chunk %q", c.Text)
					}
					if c.Start < pos || letterBytes([]byte(src), pos, c.Start) > 0 {
						t.Fatalf("ChildChars %d: chunks do not tile the text: gap %q", cc, src[pos:max(pos, c.Start)])
					}
					pos = c.End
				}
				if strings.TrimSpace(src[pos:]) != "" && letterBytes([]byte(src), pos, len(src)) > 0 {
					t.Fatalf("ChildChars %d: text after the last chunk", cc)
				}
			}
		})
	}
	// CJK full stops are sentence boundaries even without spaces.
	src := strings.Repeat("京都駅から伏見稲荷までは約五分です。", 10)
	doc := mustMarkdown(t, src, Options{ChildChars: 200, ChildOverlap: 60})
	for i, c := range doc.Chunks {
		if !strings.HasSuffix(c.Text, "。") || !strings.HasPrefix(c.Text, "京都駅") {
			t.Errorf("chunk %d not at CJK sentence boundaries: %q", i, c.Text)
		}
	}
}

func TestBlocksNotSplit(t *testing.T) {
	code := "```go\n" + strings.Repeat("x := compute() // line\n", 10) + "```" // 239 bytes
	list := strings.Repeat("- a list item with some text\n", 8)                // 232 bytes
	table := "| a | b |\n|---|---|\n" + strings.Repeat("| 1 | 2 |\n", 20)      // 220 bytes
	src := "# Doc\n\n" + sentences(3) + "\n\n" + code + "\n\n" + list + "\n" + table + "\nend\n"
	doc := mustMarkdown(t, src, Options{ChildChars: 300, ChildOverlap: 50})
	for _, blk := range []string{code, strings.TrimSpace(list), strings.TrimSpace(table)} {
		found := false
		for _, c := range doc.Chunks {
			if strings.Contains(c.Text, blk) {
				found = true
			}
		}
		if !found {
			t.Errorf("block split across chunks: %q", blk[:20])
		}
	}
	// A code block larger than ChildChars is split at line boundaries.
	big := "```\n" + strings.Repeat("line of code number n;\n", 40) + "```"
	doc = mustMarkdown(t, "# Big\n\n"+big+"\n", Options{ChildChars: 200, ChildOverlap: 40})
	if len(doc.Chunks) < 4 {
		t.Fatalf("big code block: %d chunks", len(doc.Chunks))
	}
	for i, c := range doc.Chunks {
		if i > 0 && !strings.HasPrefix(c.Text, "line of code") {
			t.Errorf("chunk %d does not start at a line: %q", i, c.Text)
		}
		if i < len(doc.Chunks)-1 && !strings.HasSuffix(c.Text, ";") {
			t.Errorf("chunk %d does not end at a line: %q", i, c.Text)
		}
	}
}

func TestLargeBlocksSplitAtParts(t *testing.T) {
	// A list larger than ChildChars is split between items, even though the
	// items contain sentence ends.
	var items []string
	for i := range 20 {
		items = append(items, fmt.Sprintf("- Item %02d. It has two sentences. Really.", i))
	}
	list := strings.Join(items, "\n")
	doc := mustMarkdown(t, "# L\n\n"+list+"\n", Options{ChildChars: 300, ChildOverlap: 60})
	if len(doc.Chunks) < 3 {
		t.Fatalf("%d chunks", len(doc.Chunks))
	}
	for i, c := range doc.Chunks {
		if !strings.HasPrefix(c.Text, "- Item") || !strings.HasSuffix(c.Text, "Really.") {
			t.Errorf("chunk %d splits a list item: %q", i, c.Text)
		}
	}
	// Callout (blockquote) parts, and code split at lines, not sentences.
	code := "```\n" + strings.Repeat("print('Done. Next step.') # comment. More\n", 12) + "```"
	doc = mustMarkdown(t, "# C\n\n"+code+"\n", Options{ChildChars: 200, ChildOverlap: 30})
	for i, c := range doc.Chunks {
		if i < len(doc.Chunks)-1 && !strings.HasSuffix(c.Text, "More") {
			t.Errorf("code chunk %d not cut at a line end: %q", i, c.Text)
		}
	}
	quote := "> [!note] Title\n> " + sentences(3) + "\n>\n> " + sentences(3) + "\n>\n> " + sentences(3)
	doc = mustMarkdown(t, quote, Options{ChildChars: 250, ChildOverlap: -1})
	if len(doc.Chunks) != 3 {
		t.Fatalf("callout: got %d chunks, want one per paragraph", len(doc.Chunks))
	}
	for i, c := range doc.Chunks {
		if !strings.HasPrefix(c.Text, ">") || !strings.Contains(c.Text, "000") || !strings.Contains(c.Text, "002 talks about retrieval and chunking.") {
			t.Errorf("callout chunk %d is not one paragraph: %q", i, c.Text)
		}
	}
}

func TestParentsSplitAtBlocks(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Big section\n\n")
	for i := range 12 {
		fmt.Fprintf(&b, "Paragraph %d. %s\n\n", i, sentences(4))
	}
	src := b.String()
	opt := Options{ChildChars: 300, ChildOverlap: 40, ParentChars: 1000}
	doc := mustMarkdown(t, src, opt)
	if len(doc.Parents) < 3 {
		t.Fatalf("got %d parents", len(doc.Parents))
	}
	for i, p := range doc.Parents {
		text := src[p.Start:p.End]
		if !slices.Equal(p.Heading, []string{"Big section"}) {
			t.Errorf("parent %d heading %q", i, p.Heading)
		}
		if i == 0 && !strings.HasPrefix(text, "# Big section") {
			t.Errorf("first parent does not start with its heading")
		}
		if i > 0 && !strings.HasPrefix(text, "Paragraph ") {
			t.Errorf("parent %d not split at a block boundary: %q", i, text[:30])
		}
		if !strings.HasSuffix(text, "chunking.") {
			t.Errorf("parent %d not split at a block boundary: %q", i, text[len(text)-30:])
		}
	}
}

func TestExactLineRanges(t *testing.T) {
	src := "---\ntags: [x]\n---\n\n# Title\n\nFirst paragraph\nwraps here, long enough to stand alone.\n\n\n## Sub\n\n- apples and pears\n- bananas and cherries\n\n```\ncode\n```\n"
	doc := mustMarkdown(t, src, Options{})
	parents, chunks := summary(doc)
	wantP := []string{"P L5-L8 [Title]", "P L11-L18 [Title > Sub]"}
	wantC := []string{"L7-L8 [Title] First paragraph\nwraps here, long enough to stand alone.", "L13-L18 [Title > Sub] - apples and pears\n- bananas and cherries\n\n```\ncode\n```"}
	if !slices.Equal(parents, wantP) || !slices.Equal(chunks, wantC) {
		t.Errorf("got %q %q", parents, chunks)
	}
	if doc.Chunks[0].Start != strings.Index(src, "First") || doc.Chunks[1].End != len(src)-1 {
		t.Errorf("byte offsets wrong: %+v", doc.Chunks)
	}
}

func TestPlainText(t *testing.T) {
	src := "\ufeffFirst para\nline two\n\n\n  Second para.  \n \t\nThird # not a heading\n"
	doc, err := PlainText([]byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkDoc(t, []byte(src), doc, Options{}, false)
	parents, chunks := summary(doc)
	if want := []string{"P L1-L7 []"}; !slices.Equal(parents, want) {
		t.Errorf("parents %q", parents)
	}
	if want := []string{"L1-L7 [] First para\nline two\n\n\n  Second para.  \n \t\nThird # not a heading"}; !slices.Equal(chunks, want) {
		t.Errorf("chunks %q", chunks)
	}
	if doc.BodyStart != 3 || doc.Title != "" || doc.Tags != nil {
		t.Errorf("doc %+v", doc)
	}
	// Paragraphs group into parents of at most ParentChars at paragraph boundaries.
	var b strings.Builder
	for i := range 10 {
		fmt.Fprintf(&b, "%s\n\n", sentences(3+i%3))
	}
	opt := Options{ChildChars: 200, ChildOverlap: 30, ParentChars: 500}
	src = b.String()
	doc, err = PlainText([]byte(src), opt)
	if err != nil {
		t.Fatal(err)
	}
	checkDoc(t, []byte(src), doc, opt, false)
	if len(doc.Parents) < 4 {
		t.Errorf("got %d parents", len(doc.Parents))
	}
	for i, p := range doc.Parents {
		if !strings.HasPrefix(src[p.Start:p.End], "Sentence number 000") {
			t.Errorf("parent %d does not start at a paragraph", i)
		}
	}
	for _, s := range []string{"", "\n\n  \n"} {
		doc, err := PlainText([]byte(s), Options{})
		if err != nil || len(doc.Parents) != 0 || len(doc.Chunks) != 0 {
			t.Errorf("PlainText(%q) = %+v, %v", s, doc, err)
		}
	}
}

func TestLongHeading(t *testing.T) {
	// A heading longer than ParentChars is split; its fragments stay covered.
	h := "# " + strings.Repeat("very long heading ", 10)
	for _, src := range []string{h + "\n", h + "\n\nbody text here\n", h + "\n" + sentences(3)} {
		mustMarkdown(t, src, Options{ChildChars: 40, ChildOverlap: 10, ParentChars: 60})
	}
}

func TestConcurrent(t *testing.T) {
	src := []byte("---\ntags: [a]\n---\n# T\n\n" + sentences(50) + "\n\n## U\n\n- x #y\n")
	want, err := Markdown(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				got, err := Markdown(src, Options{})
				if err != nil || len(got.Chunks) != len(want.Chunks) || !slices.Equal(got.Tags, want.Tags) {
					t.Error("concurrent result differs")
					return
				}
			}
		}()
	}
	wg.Wait()
}

// letterBytes counts the bytes of the letters and digits of src[s:e].
func letterBytes(src []byte, s, e int) int {
	n := 0
	for i := s; i < e; {
		c := src[i]
		if c < utf8.RuneSelf {
			if isWordByte(c) {
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:e])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n += size
		}
		i += size
	}
	return n
}
