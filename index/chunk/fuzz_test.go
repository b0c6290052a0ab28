package chunk

import (
	"fmt"
	"os"
	"testing"
	"time"
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
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				os.WriteFile(fmt.Sprintf("/tmp/hang-%d.bin", n), src, 0o644)
				panic(fmt.Sprintf("hang n=%d", n))
			}
		}()
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
