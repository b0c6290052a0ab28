package chunk

import (
	"fmt"
	"strings"
	"testing"
)

func TestDebugList(t *testing.T) {
	var items []string
	for i := range 20 {
		items = append(items, fmt.Sprintf("- Item %02d. It has two sentences. Really.", i))
	}
	src := "# L\n\n" + strings.Join(items, "\n") + "\n"
	d, _ := Markdown([]byte(src), Options{ChildChars: 300, ChildOverlap: 60})
	for i, c := range d.Chunks { fmt.Printf("C%d [%d,%d) %d %q\n", i, c.Start, c.End, c.End-c.Start, c.Text[:20]) }
	quote := "> [!note] Title\n> " + sentences(3) + "\n>\n> " + sentences(3) + "\n>\n> " + sentences(3)
	d, _ = Markdown([]byte(quote), Options{ChildChars: 400, ChildOverlap: -1})
	for i, c := range d.Chunks { fmt.Printf("C%d [%d,%d) %d %q\n", i, c.Start, c.End, c.End-c.Start, c.Text) }
	mdParser.Parse(textReader([]byte(quote))).Dump([]byte(quote), 0)
}
