package html

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/plugins"
)

func extract(t testing.TB, src, mediaType string) plugins.Extraction {
	t.Helper()
	x, err := New().Extract(context.Background(), plugins.ExtractRequest{Path: "t.html", MediaType: mediaType, Data: []byte(src)})
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	return x
}

func TestConvert(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"headings and paragraphs",
			`<h1>Top</h1><p>One  two
			three.</p><h2>Sub <em>part</em></h2><p>Four</p><h6>Deep</h6>`,
			"# Top\n\nOne two three.\n\n## Sub part\n\nFour\n\n###### Deep\n"},
		{"noise dropped",
			`<html><head><title>T</title><style>p{}</style><script>var x=1</script></head>
			<body><nav><a href="/">Home</a></nav><header>Site banner</header>
			<p>Body <script>alert(1)</script>text</p><div hidden>secret</div>
			<span style="display: none">gone</span><noscript>enable js</noscript>
			<footer>Copyright</footer></body></html>`,
			"Body text\n"},
		{"article header kept",
			`<body><article><header><h1>Post</h1></header><p>Text</p><footer>By me</footer></article></body>`,
			"# Post\n\nText\n\nBy me\n"},
		{"main only",
			`<body><div>sidebar</div><main><p>Real content</p></main><div>more chrome</div></body>`,
			"Real content\n"},
		{"lists",
			`<ul><li>a</li><li>b<ul><li>b1</li><li>b2</li></ul></li></ul><ol start="3"><li>x</li><li><p>y</p></li></ol>`,
			"- a\n- b\n  - b1\n  - b2\n\n3. x\n4. y\n"},
		{"pre and code",
			"<p>Use <code>go test</code>:</p><pre><code class=\"language-go\">func main() {\n\tprintln(\"```\")\n}\n</code></pre>",
			"Use go test:\n\n```go\nfunc main() {\n\tprintln(\"```\")\n}\n```\n"},
		{"fence in code",
			"<pre>x\n```\ny</pre>",
			"````\nx\n```\ny\n````\n"},
		{"links as text",
			`<p>See <a href="https://example.org/x">the docs</a> and <a href="#y">here</a>.</p>`,
			"See the docs and here.\n"},
		{"line breaks",
			`<p>line one<br>line two<br/><br>line three</p>`,
			"line one\nline two\nline three\n"},
		{"blockquote",
			`<blockquote><p>quoted</p><p>twice</p></blockquote><p>after</p>`,
			"> quoted\n>\n> twice\n\nafter\n"},
		{"table",
			`<table><thead><tr><th>Name</th><th>Qty</th></tr></thead><tbody><tr><td>a|b</td><td>1</td></tr><tr><td>c</td></tr></tbody></table>`,
			"| Name | Qty |\n| --- | --- |\n| a\\|b | 1 |\n| c |  |\n"},
		{"layout table",
			`<table><tr><td><p>cell one</p></td></tr><tr><td>cell two</td></tr></table>`,
			"cell one\n\ncell two\n"},
		{"markdown escaped",
			`<p># not a heading</p><p>- not a list</p><p>1. not ordered</p><p>---</p><p>&gt; no quote</p>`,
			"\\# not a heading\n\n\\- not a list\n\n1\\. not ordered\n\n\\---\n\n\\> no quote\n"},
		{"entities and unicode",
			`<p>caf&eacute; &amp; na&#239;ve &#x1F600; 日本語</p>`,
			"café & naïve 😀 日本語\n"},
		{"malformed",
			`<p>unclosed <b>bold <i>both</p><div>next`,
			"unclosed bold both\n\nnext\n"},
		{"empty", ``, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := extract(t, tc.in, "")
			if x.Text != tc.want {
				t.Errorf("got\n%q\nwant\n%q", x.Text, tc.want)
			}
			if x.Format != plugins.FormatMarkdown {
				t.Errorf("format %q", x.Format)
			}
		})
	}
}

func TestTitleAndMetadata(t *testing.T) {
	x := extract(t, `<html lang="de"><head><meta charset="utf-8"><title> Page
		Title </title><meta name="description" content="About it"><meta name="author" content="Ada">
		<meta property="og:title" content="OG"></head><body><h1>Heading</h1></body></html>`, "")
	if x.Title != "Page Title" {
		t.Errorf("title %q", x.Title)
	}
	want := map[string]string{"description": "About it", "author": "Ada", "lang": "de", "charset": "utf-8"}
	for k, v := range want {
		if x.Metadata[k] != v {
			t.Errorf("metadata[%s] = %q, want %q (all: %v)", k, x.Metadata[k], v, x.Metadata)
		}
	}
	if x := extract(t, `<head><meta property="og:title" content="OG"></head><h1>H</h1>`, ""); x.Title != "OG" {
		t.Errorf("og title: %q", x.Title)
	}
	if x := extract(t, `<p>x</p><h1>First <b>H1</b></h1><h1>Second</h1>`, ""); x.Title != "First H1" {
		t.Errorf("h1 title: %q", x.Title)
	}
}

func TestCharset(t *testing.T) {
	tests := []struct {
		name, mediaType string
		in              []byte
		want, cs        string
	}{
		{"meta charset latin1", "", []byte("<meta charset=\"iso-8859-1\"><p>caf\xe9 \xfcber</p>"), "café über", "windows-1252"},
		{"http-equiv", "", []byte("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1252\"><p>\x93quoted\x94</p>"), "\u201cquoted\u201d", "windows-1252"},
		{"media type param", "text/html; charset=shift_jis", []byte("<p>\x93\xfa\x96{\x8c\xea</p>"), "日本語", "shift_jis"},
		{"utf-8 bom", "", []byte("\xef\xbb\xbf<p>bom ü</p>"), "bom ü", "utf-8"},
		{"utf-16le bom", "", []byte("\xff\xfe<\x00p\x00>\x00h\x00\xe9\x00<\x00/\x00p\x00>\x00"), "hé", "utf-16le"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := extract(t, string(tc.in), tc.mediaType)
			if got := strings.TrimSpace(x.Text); got != tc.want {
				t.Errorf("text %q, want %q", got, tc.want)
			}
			if x.Metadata["charset"] != tc.cs {
				t.Errorf("charset %q, want %q", x.Metadata["charset"], tc.cs)
			}
		})
	}
}

// TestChunks checks that the output feeds the Markdown chunker as intended:
// headings become sections.
func TestChunks(t *testing.T) {
	x := extract(t, `<title>Doc</title><h1>Alpha</h1><p>first</p><h2>Beta</h2><p>second</p><ul><li>item</li></ul>`, "")
	doc, err := chunk.Markdown([]byte(x.Text), chunk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got [][]string
	for _, p := range doc.Parents {
		got = append(got, p.Headings...)
	}
	want := [][]string{{"Alpha"}, {"Alpha", "Beta"}}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("headings %q, want %q\n%s", got, want, x.Text)
	}
}

func TestLimits(t *testing.T) {
	e := New()
	if err := e.Configure(context.Background(), plugins.Options{"max_bytes": float64(10)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Extract(context.Background(), plugins.ExtractRequest{Data: []byte("<p>more than ten bytes</p>")}); err == nil {
		t.Error("no error over max_bytes")
	}
	if err := e.Configure(context.Background(), plugins.Options{"max_byte": 1}); err == nil {
		t.Error("unknown option accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Extract(ctx, plugins.ExtractRequest{Data: []byte("<p>x</p>")}); err == nil {
		t.Error("no error on canceled context")
	}
	info, _ := New().ExtractorInfo(context.Background())
	if info.Name != "html" || !slices.Contains(info.Extensions, ".html") {
		t.Errorf("info %+v", info)
	}
}
