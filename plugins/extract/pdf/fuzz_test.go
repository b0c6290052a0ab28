package pdf

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragd/ragd/plugins"
)

// FuzzExtract feeds the pure-Go backend (the in-process parser; pdftotext
// runs in its own process) arbitrary bytes: it must return text or an
// error, never panic or hang. The seeds — the fixtures, cut and damaged —
// run in every normal test run.
func FuzzExtract(f *testing.F) {
	for _, name := range []string{"report.pdf", "office.pdf", "cairo.pdf", "encrypted.pdf"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)/3])
		f.Add(bytes.Replace(data, []byte("/Kids"), []byte("/Kidz"), 1))
		f.Add(bytes.Replace(data, []byte("/Contents"), []byte("/Contentz"), -1))
		f.Add(bytes.Replace(data, []byte("/Font"), []byte("/Fonx"), -1))
	}
	f.Add([]byte("%PDF-1.4\n%%EOF\n"))
	f.Add([]byte("%PDF-2.0\n1 0 obj<</Type/Catalog/Pages 1 0 R>>endobj\ntrailer<</Root 1 0 R>>\nstartxref\n9\n%%EOF\n"))
	e := New()
	if err := e.Configure(context.Background(), plugins.Options{"backend": "go", "timeout": "10s"}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		x, err := e.Extract(ctx, plugins.ExtractRequest{Path: "f.pdf", Data: data})
		if err != nil {
			return
		}
		if !utf8.ValidString(x.Text) || !utf8.ValidString(x.Title) {
			t.Fatal("invalid UTF-8")
		}
		lines := bytes.Count([]byte(x.Text), []byte("\n"))
		for _, p := range x.Pages {
			if p.StartLine < 1 || p.StartLine > max(lines, 1) {
				t.Fatalf("page %d starts at line %d of %d", p.Number, p.StartLine, lines)
			}
		}
	})
}

// BenchmarkExtract measures both backends on the LibreOffice fixture
// (MB/s of PDF input; the file is mostly embedded fonts).
func BenchmarkExtract(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("testdata", "office.pdf"))
	if err != nil {
		b.Fatal(err)
	}
	for _, backend := range []string{"go", "pdftotext"} {
		b.Run(backend, func(b *testing.B) {
			e := New()
			if err := e.Configure(context.Background(), plugins.Options{"backend": backend}); err != nil {
				b.Skip(err)
			}
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			pages := 0
			for b.Loop() {
				x, err := e.Extract(context.Background(), plugins.ExtractRequest{Data: data})
				if err != nil {
					b.Fatal(err)
				}
				pages += len(x.Pages)
			}
			b.ReportMetric(float64(pages)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}
