package chunk

import (
	"fmt"
	"os"
	"testing"
)

func TestDebug(t *testing.T) {
	src := []byte(os.Getenv("SRC"))
	d, err := Markdown(src, fuzzOptions(0))
	fmt.Println(err, d.BodyStart)
	for i, p := range d.Parents {
		fmt.Printf("P%d %+v %q\n", i, p, src[p.Start:p.End])
	}
	for i, c := range d.Chunks {
		fmt.Printf("C%d p%d [%d,%d) L%d-%d %q\n", i, c.Parent, c.Start, c.End, c.LineStart, c.LineEnd, c.Text)
	}
	root := mdParser.Parse(textReader(src[d.BodyStart:]))
	root.Dump(src[d.BodyStart:], 0)
}
