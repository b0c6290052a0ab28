package docx

import (
	"archive/zip"
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/plugins"
)

func extract(t testing.TB, data []byte) plugins.Extraction {
	t.Helper()
	x, err := New().Extract(context.Background(), plugins.ExtractRequest{Path: "t.docx", Data: data})
	if err != nil {
		t.Fatalf("Extract: %v", err)
	}
	return x
}

func TestConvert(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"headings",
			p("Title", "Handbook") + p("Heading1", "Intro") + p("", "text") + p("Heading2", "Sub", " part") +
				p("berschrift3", "Localized") + p("MyHeading", "Based on heading 2") + p("Chapter", "Outline level"),
			"# Handbook\n\n# Intro\n\ntext\n\n## Sub part\n\n### Localized\n\n## Based on heading 2\n\n#### Outline level\n"},
		{"runs, tabs, breaks",
			`<w:p><w:r><w:t xml:space="preserve">a </w:t></w:r><w:r><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t><w:cr/><w:t>d</w:t></w:r>` +
				`<w:r><w:t>non</w:t><w:noBreakHyphen/><w:t>break</w:t><w:softHyphen/><w:t>ing</w:t></w:r></w:p>`,
			"a \tb\nc\ndnon-breaking\n"},
		{"bullets and numbers",
			li(1, 0, "one") + li(1, 1, "nested") + li(1, 0, "two") + p("", "between") +
				li(2, 0, "first") + li(2, 1, "sub a") + li(2, 1, "sub b") + li(2, 0, "second") + p("ListBullet", "style bullet"),
			"- one\n  - nested\n- two\n\nbetween\n\n1. first\n   1. sub a\n   2. sub b\n2. second\n- style bullet\n"},
		{"table",
			tbl([]string{"Name", "Qty"}, []string{"apples | pears", "3"}, []string{"kiwi"}),
			"| Name | Qty |\n| --- | --- |\n| apples \\| pears | 3 |\n| kiwi |  |\n"},
		{"table gridSpan and one column",
			`<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="2"/></w:tcPr>` + p("", "wide") + `</w:tc></w:tr><w:tr><w:tc>` + p("", "a") + p("", "b") + `</w:tc><w:tc>` + p("", "c") + `</w:tc></w:tr></w:tbl>` +
				tbl([]string{"solo"}, []string{"column"}),
			"| wide |  |\n| --- | --- |\n| a b | c |\n\nsolo\n\ncolumn\n"},
		{"nested table folds into cell",
			`<w:tbl><w:tr><w:tc>` + p("", "outer") + tbl([]string{"in1", "in2"}) + `</w:tc><w:tc>` + p("", "x") + `</w:tc></w:tr></w:tbl>`,
			"| outer in1 in2 | x |\n| --- | --- |\n"},
		{"revisions and fields",
			`<w:p><w:r><w:t>kept</w:t></w:r><w:del><w:r><w:delText>deleted</w:delText></w:r></w:del><w:ins><w:r><w:t xml:space="preserve"> inserted</w:t></w:r></w:ins>` +
				`<w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> PAGE </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t xml:space="preserve"> 7</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`,
			"kept inserted 7\n"},
		{"text box once, math",
			`<w:p><w:r><w:t>anchor</w:t></w:r><w:r><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing><wps:txbx><w:txbxContent>` + p("", "in box") + `</w:txbxContent></wps:txbx></w:drawing></mc:Choice>` +
				`<mc:Fallback><w:pict><v:textbox><w:txbxContent>` + p("", "in box") + `</w:txbxContent></v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>` +
				`<w:p><m:oMath><m:r><m:t>E=mc²</m:t></m:r></m:oMath></w:p>`,
			"in box\n\nanchor\n\nE=mc²\n"},
		{"markdown escaped, unicode",
			p("", "# not heading") + p("", "1. not list") + p("", "---") + p("", "日本語 ünïcödé 😀 &amp; &lt;tag&gt;"),
			"\\# not heading\n\n1\\. not list\n\n\\---\n\n日本語 ünïcödé 😀 & <tag>\n"},
		{"empty", "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x := extract(t, docx(t, "T", tc.body, nil))
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
	x := extract(t, docx(t, "Core  Title", sample(1), nil))
	if x.Title != "Core Title" {
		t.Errorf("title %q", x.Title)
	}
	want := map[string]string{"author": "Grace Hopper", "keywords": "retrieval, notes", "last_modified_by": "Ada", "created": "2024-05-01T10:00:00Z"}
	for k, v := range want {
		if x.Metadata[k] != v {
			t.Errorf("metadata[%s] = %q, want %q", k, x.Metadata[k], v)
		}
	}
	// No dc:title: the Title paragraph, else the first heading.
	if x := extract(t, docx(t, "", sample(1), nil)); x.Title != "Project Handbook" {
		t.Errorf("title from Title style: %q", x.Title)
	}
	if x := extract(t, docx(t, "", p("Heading2", "First heading"), map[string]string{"docProps/core.xml": ""})); x.Title != "First heading" {
		t.Errorf("title from heading: %q", x.Title)
	}
}

// TestMinimal reads a package with only a document part and no styles,
// numbering or relationships (style ids are then read as names).
func TestMinimal(t *testing.T) {
	data := docx(t, "", p("Heading1", "Hello")+p("", "world"), map[string]string{
		"word/styles.xml": "", "word/numbering.xml": "", "_rels/.rels": "", "docProps/core.xml": "",
	})
	if x := extract(t, data); x.Text != "# Hello\n\nworld\n" {
		t.Errorf("got %q", x.Text)
	}
	// Broken styles are ignored; a broken document is an error.
	data = docx(t, "", p("", "ok"), map[string]string{"word/styles.xml": "<w:styles"})
	if x := extract(t, data); x.Text != "ok\n" {
		t.Errorf("got %q", x.Text)
	}
}

func TestErrors(t *testing.T) {
	good := docx(t, "T", sample(2), nil)
	tests := map[string][]byte{
		"empty":       nil,
		"not zip":     []byte("PK\x03\x04 definitely not a zip"),
		"truncated":   good[:len(good)/2],
		"no document": docx(t, "T", "", map[string]string{"word/document.xml": "", "_rels/.rels": ""}),
		"bad xml":     docx(t, "T", "", map[string]string{"word/document.xml": "<w:document " + nsW + "><w:body><w:p>"}),
	}
	for name, data := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := New().Extract(context.Background(), plugins.ExtractRequest{Path: "x.docx", Data: data})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), "x.docx") {
				t.Errorf("error does not name the file: %v", err)
			}
		})
	}
}

func TestLimits(t *testing.T) {
	// A small zip whose document inflates to 2 MiB: over 8×max_bytes.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("word/document.xml")
	w.Write([]byte("<w:document " + nsW + "><w:body><w:p><w:r><w:t>"))
	w.Write(bytes.Repeat([]byte("a"), 2<<20))
	w.Write([]byte("</w:t></w:r></w:p></w:body></w:document>"))
	zw.Close()
	e := New()
	if err := e.Configure(context.Background(), plugins.Options{"max_bytes": float64(buf.Len() + 10)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Extract(context.Background(), plugins.ExtractRequest{Data: buf.Bytes()}); err == nil || !strings.Contains(err.Error(), "size limit") {
		t.Errorf("zip bomb: %v", err)
	}
	if _, err := New().Extract(context.Background(), plugins.ExtractRequest{Data: buf.Bytes()}); err != nil {
		t.Errorf("default limit: %v", err)
	}
	e.Configure(context.Background(), plugins.Options{"max_bytes": float64(100)})
	if _, err := e.Extract(context.Background(), plugins.ExtractRequest{Data: buf.Bytes()}); err == nil {
		t.Error("no error over max_bytes")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := New().Extract(ctx, plugins.ExtractRequest{Data: buf.Bytes()}); err == nil {
		t.Error("no error on canceled context")
	}
	if err := e.Configure(context.Background(), plugins.Options{"max_bytes": "big"}); err == nil {
		t.Error("bad option accepted")
	}
	info, _ := New().ExtractorInfo(context.Background())
	if info.Name != "docx" || !slices.Contains(info.Extensions, ".docx") {
		t.Errorf("info %+v", info)
	}
}

// TestChunks checks that headings become sections for the chunker.
func TestChunks(t *testing.T) {
	x := extract(t, docx(t, "T", sample(2), nil))
	if !utf8.ValidString(x.Text) {
		t.Fatal("invalid UTF-8")
	}
	doc, err := chunk.Markdown([]byte(x.Text), chunk.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range doc.Parents {
		for _, h := range p.Headings {
			got = append(got, strings.Join(h, " > "))
		}
	}
	want := []string{"Project Handbook", "Chapter 1", "Chapter 1 > Steps", "Chapter 2", "Chapter 2 > Steps"}
	if !slices.Equal(got, want) {
		t.Errorf("sections %q, want %q\n%s", got, want, x.Text)
	}
}
