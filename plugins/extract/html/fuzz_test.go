package html

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/plugins"
)

// FuzzExtract checks that any input yields valid UTF-8 Markdown that the
// chunker accepts, or an error, and never a panic. The seeds run in every
// normal test run.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"", "<", "<p>x", "<table><tr><td>a<td>b<tr><td>c", "<ul><li><ol><li>x</ol></ul>",
		"<pre>```\n</pre>", "<meta charset=\"shift_jis\"><p>\x93\xfa</p>", "\xff\xfe<\x00",
		"<h1>#</h1><p>---</p><blockquote><ul><li><pre>x</pre></li></ul></blockquote>",
		"<body><main hidden><p>x</p></main><p>y</p>", "\x00<p>\x01\r\n</p>",
		strings.Repeat("<div>", 2000) + "deep",
		benchPage(3),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := New().Extract(context.Background(), plugins.ExtractRequest{Path: "f.html", Data: data})
		if err != nil {
			return
		}
		if !utf8.ValidString(x.Text) || !utf8.ValidString(x.Title) {
			t.Fatalf("invalid UTF-8 in output")
		}
		if _, err := chunk.Markdown([]byte(x.Text), chunk.Options{}); err != nil {
			t.Fatalf("chunk: %v", err)
		}
	})
}

// benchPage returns a realistic article of n sections.
func benchPage(n int) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bench</title>
<style>body{font:16px sans-serif}</style><script>window.x=1</script></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/a">About</a></li></ul></nav><main><article>`)
	for i := range n {
		fmt.Fprintf(&b, `<h2>Section %d</h2><p>Retrieval quality depends on <a href="/x">chunking</a>, on the
<em>embedding</em> model and on the reranker; section %d explains the trade-offs in detail.</p>
<ul><li>first point about indexing</li><li>second point with <code>code</code></li></ul>
<table><tr><th>k</th><th>v</th></tr><tr><td>alpha</td><td>%d</td></tr></table>
<pre><code class="language-go">for i := range %d {
	fmt.Println(i)
}</code></pre>`, i, i, i, i)
	}
	b.WriteString(`</article></main><footer>© ragd</footer></body></html>`)
	return b.String()
}

func BenchmarkExtract(b *testing.B) {
	data := []byte(benchPage(400))
	e := New()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Extract(context.Background(), plugins.ExtractRequest{Data: data}); err != nil {
			b.Fatal(err)
		}
	}
}
