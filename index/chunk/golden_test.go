package chunk

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// render prints a document in the human-reviewable golden format.
func render(src []byte, doc *Document) string {
	var b strings.Builder
	fmt.Fprintf(&b, "title: %q\n", doc.Title)
	fmt.Fprintf(&b, "tags: %q\n", doc.Tags)
	fmt.Fprintf(&b, "aliases: %q\n", doc.Aliases)
	keys := make([]string, 0, len(doc.Meta))
	for k := range doc.Meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	fmt.Fprintf(&b, "meta: %v (nil=%v)\n", keys, doc.Meta == nil)
	for _, p := range doc.Properties {
		fmt.Fprintf(&b, "  %s: %q\n", p.Key, p.Values)
	}
	fmt.Fprintf(&b, "body: byte %d, L%d\n", doc.BodyStart, countLine(src, doc.BodyStart))
	fmt.Fprintf(&b, "links: %d\n", len(doc.Links))
	for _, l := range doc.Links {
		fmt.Fprintf(&b, "  L%d %s\n", countLine(src, l.Start), formatLink(src, l))
	}
	for i, p := range doc.Parents {
		fmt.Fprintf(&b, "P%d L%d-L%d [%s] %dB %s\n", i, p.LineStart, p.LineEnd,
			strings.Join(p.Heading, " > "), p.End-p.Start, preview(string(src[p.Start:p.End])))
		for j, c := range doc.Chunks {
			if c.Parent == i {
				fmt.Fprintf(&b, "  C%d p%d L%d-L%d [%s] %dB %s\n", j, c.Parent, c.LineStart, c.LineEnd,
					strings.Join(c.Heading, " > "), c.End-c.Start, preview(c.Text))
				if len(c.Headings) > 1 {
					fmt.Fprintf(&b, "    headings:")
					for _, h := range c.Headings {
						fmt.Fprintf(&b, " [%s]", strings.Join(h, " > "))
					}
					b.WriteByte('\n')
				}
			}
		}
	}
	return b.String()
}

// formatLink renders a link as its kind, its source text and its non-empty
// fields, e.g. `wiki "[[A#H|x]]" target="A" heading="H" alias="x"`.
func formatLink(src []byte, l Link) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %q target=%q", l.Kind, src[l.Start:l.End], l.Target)
	for _, f := range [...]struct{ k, v string }{{"heading", l.Heading}, {"block", l.Block}, {"alias", l.Alias}, {"field", l.Field}} {
		if f.v != "" {
			fmt.Fprintf(&b, " %s=%q", f.k, f.v)
		}
	}
	return b.String()
}

// preview quotes the first 60 characters of s.
func preview(s string) string {
	r := []rune(s)
	if len(r) > 60 {
		return strconv.Quote(string(r[:60])) + "…"
	}
	return strconv.Quote(s)
}

// globNotes lists the testdata notes (*.md and *.txt).
func globNotes() ([]string, error) {
	files, err := filepath.Glob("testdata/*.md")
	if err != nil {
		return nil, err
	}
	txt, err := filepath.Glob("testdata/*.txt")
	return append(files, txt...), err
}

func testdataNotes(t testing.TB) []string {
	files, err := globNotes()
	if err != nil || len(files) == 0 {
		t.Fatalf("no testdata notes: %v", err)
	}
	return files
}

// goldenOptions are the option sets rendered for every note: the defaults
// (NAME.golden) and small sizes that force splitting (NAME.small.golden).
var goldenOptions = []struct {
	suffix string
	opt    Options
}{
	{".golden", Options{}},
	{".small.golden", Options{ChildChars: 300, ChildOverlap: 60, ParentChars: 800}},
}

func TestGolden(t *testing.T) {
	for _, path := range testdataNotes(t) {
		for _, g := range goldenOptions {
			t.Run(filepath.Base(path)+g.suffix, func(t *testing.T) {
				testGolden(t, path, g.suffix, g.opt)
			})
		}
	}
}

func testGolden(t *testing.T, path, suffix string, opt Options) {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := strings.HasSuffix(path, ".md")
	chunker := PlainText
	if md {
		chunker = Markdown
	}
	doc, err := chunker(src, opt)
	if err != nil {
		t.Fatal(err)
	}
	checkDoc(t, src, doc, opt, md)
	got := render(src, doc)
	golden := strings.TrimSuffix(path, filepath.Ext(path)) + suffix
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from golden (run go test -update and review):\n%s", golden, got)
	}
}
