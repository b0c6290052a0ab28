package docx

import (
	"archive/zip"
	"bytes"
	"context"
	"testing"
	"unicode/utf8"

	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/plugins"
)

// FuzzExtract checks that any input yields valid UTF-8 Markdown that the
// chunker accepts, or an error, and never a panic. The seeds (real
// packages and broken ones) run in every normal test run.
func FuzzExtract(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("PK\x03\x04"))
	f.Add(docx(f, "T", sample(1), nil))
	f.Add(docx(f, "", li(1, 0, "x")+tbl([]string{"a", "b"}), map[string]string{"word/styles.xml": ""}))
	f.Add(docx(f, "", `<w:p><w:r><w:t>`, nil))
	f.Add(docx(f, "", p("Loop1", "cycle"), nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := New().Extract(context.Background(), plugins.ExtractRequest{Path: "f.docx", Data: data})
		if err != nil {
			return
		}
		if !utf8.ValidString(x.Text) || !utf8.ValidString(x.Title) {
			t.Fatal("invalid UTF-8 in output")
		}
		if _, err := chunk.Markdown([]byte(x.Text), chunk.Options{}); err != nil {
			t.Fatalf("chunk: %v", err)
		}
	})
}

func BenchmarkExtract(b *testing.B) {
	data := docx(b, "Bench", sample(500), nil)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		b.Fatal(err)
	}
	var xmlBytes uint64
	for _, f := range zr.File {
		xmlBytes += f.UncompressedSize64
	}
	b.Logf("%d bytes zipped, %d bytes of XML", len(data), xmlBytes)
	e := New()
	b.SetBytes(int64(xmlBytes)) // MB/s of inflated XML; the file is far smaller
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Extract(context.Background(), plugins.ExtractRequest{Data: data}); err != nil {
			b.Fatal(err)
		}
	}
}
