package chunk

import (
	"fmt"
	"os"
	"testing"
)

func TestDebug(t *testing.T) {
	src, _ := os.ReadFile(os.Getenv("F"))
	d, _ := Markdown(src, Options{})
	for i, c := range d.Chunks {
		fmt.Printf("C%d p%d [%d,%d) %dB\n   START %q\n   END %q\n", i, c.Parent, c.Start, c.End, c.End-c.Start, c.Text[:min(50, len(c.Text))], c.Text[max(0, len(c.Text)-50):])
	}
}
