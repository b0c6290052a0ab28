package pdf

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/plugins"
)

// backends returns the backends to test here: always "go", and
// "pdftotext" when installed (or required).
func backends(t *testing.T) []string {
	if _, err := exec.LookPath("pdftotext"); err == nil {
		return []string{"go", "pdftotext"}
	}
	if os.Getenv("RAGD_REQUIRE_PDFTOTEXT") == "1" {
		t.Fatal("RAGD_REQUIRE_PDFTOTEXT=1 but pdftotext is not on PATH (install poppler-utils)")
	}
	t.Log("pdftotext not on PATH (install poppler-utils): testing the go backend only")
	return []string{"go"}
}

func TestReport(t *testing.T) {
	data := fixture(t, "report.pdf")
	for _, b := range backends(t) {
		t.Run(b, func(t *testing.T) {
			x := extractWith(t, b, true, data)
			if x.Format != plugins.FormatText {
				t.Errorf("format %q", x.Format)
			}
			if x.Title != "Retrieval Fixture Report" {
				t.Errorf("title %q", x.Title)
			}
			want := map[string]string{"author": "Ada Lovelace", "pages": "3", "producer": "FPDF 1.7",
				"created": "2024-05-01T12:00:00Z", "subject": "Test document for the PDF extractor", "extractor": b}
			for k, v := range want {
				if x.Metadata[k] != v {
					t.Errorf("metadata[%s] = %q, want %q", k, x.Metadata[k], v)
				}
			}
			lines := strings.Split(x.Text, "\n")
			at := func(n int) string { return lines[x.Pages[n-1].StartLine-1] }
			if len(x.Pages) != 3 || at(1) != "Retrieval Fixture Report" || at(2) != "3. Evaluation" || at(3) != "Appendix" {
				t.Errorf("pages %v start with %q", x.Pages, []string{at(1), at(2), at(3)})
			}
			if !strings.Contains(x.Text, "reliable retrieval: a chunk") && !strings.Contains(x.Text, "reliable retrieval:\n") {
				t.Errorf("hyphenated word not joined:\n%s", x.Text)
			}
			for _, noise := range []string{"ragd fixture report", "Page 1 of 3", "retrie-"} {
				if strings.Contains(x.Text, noise) {
					t.Errorf("text contains %q", noise)
				}
			}
			for _, w := range []string{"Café owners in Zürich, naïve façades", "• watch the vaults"} {
				if !strings.Contains(x.Text, w) {
					t.Errorf("text lacks %q", w)
				}
			}
			// Paragraphs are separated by blank lines for the chunker.
			doc, err := chunk.PlainText([]byte(x.Text), chunk.Options{ChildChars: 400})
			if err != nil || len(doc.Chunks) < 8 {
				t.Errorf("chunks: %d, %v", len(doc.Chunks), err)
			}
			kept := extractWith(t, b, false, data)
			if !strings.Contains(kept.Text, "ragd fixture report") || !strings.Contains(kept.Text, "Page 2 of 3") {
				t.Error("strip_headers=false dropped the running header")
			}
		})
	}
}

func TestTitleFallback(t *testing.T) {
	// cairo.pdf has no document information: the first line is the title.
	for _, b := range backends(t) {
		if x := extractWith(t, b, true, fixture(t, "cairo.pdf")); x.Title != "Office Fixture" {
			t.Errorf("%s: title %q", b, x.Title)
		}
	}
}

func TestErrors(t *testing.T) {
	report := fixture(t, "report.pdf")
	office := fixture(t, "office.pdf")
	cases := map[string][]byte{
		"empty":           nil,
		"not a pdf":       []byte("hello, world\n"),
		"header only":     []byte("%PDF-1.4\n"),
		"garbage":         append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("\x00\xff garbage obj << >> endobj\n"), 50)...),
		"truncated 10%":   report[:len(report)/10],
		"truncated 50%":   report[:len(report)/2],
		"truncated 95%":   report[:len(report)*95/100],
		"office half":     office[:len(office)/2],
		"no trailer":      bytes.ReplaceAll(report, []byte("trailer"), []byte("xxxxxxx")),
		"broken xref":     bytes.ReplaceAll(report, []byte("startxref"), []byte("startxxxx")),
		"encrypted":       fixture(t, "encrypted.pdf"),
		"zeroed contents": zeroStreams(report),
	}
	for _, b := range backends(t) {
		for name, data := range cases {
			t.Run(b+"/"+name, func(t *testing.T) {
				e := New()
				e.Configure(context.Background(), plugins.Options{"backend": b, "timeout": "20s"})
				x, err := e.Extract(context.Background(), plugins.ExtractRequest{Path: "bad.pdf", Data: data})
				switch name {
				case "zeroed contents": // parses: text is lost, not the file
					if err == nil && strings.Contains(x.Text, "Evaluation") {
						t.Errorf("text from zeroed streams")
					}
					return
				case "broken xref", "no trailer": // poppler rebuilds the xref table
					if err == nil && b == "pdftotext" {
						if !strings.Contains(x.Text, "Appendix") || len(x.Pages) != 3 {
							t.Errorf("repaired file: %d pages, text %q", len(x.Pages), x.Text)
						}
						return
					}
				}
				if err == nil {
					t.Fatalf("no error; text %q", x.Text)
				}
				if !strings.Contains(err.Error(), "bad.pdf") {
					t.Errorf("error does not name the file: %v", err)
				}
				if name == "encrypted" && !errors.Is(err, ErrEncrypted) {
					t.Errorf("encrypted: %v is not ErrEncrypted", err)
				}
				t.Logf("%v", err)
			})
		}
	}
}

// zeroStreams overwrites the data of every stream, keeping the lengths.
func zeroStreams(pdf []byte) []byte {
	out := slices.Clone(pdf)
	for i := 0; ; {
		s := bytes.Index(out[i:], []byte("stream\n"))
		if s < 0 {
			return out
		}
		s += i + len("stream\n")
		e := bytes.Index(out[s:], []byte("endstream"))
		if e < 0 {
			return out
		}
		for j := s; j < s+e-1; j++ {
			out[j] = 'x'
		}
		i = s + e + len("endstream")
	}
}

func TestLimits(t *testing.T) {
	data := fixture(t, "report.pdf")
	e := New()
	if err := e.Configure(context.Background(), plugins.Options{"max_bytes": float64(1000)}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Extract(context.Background(), plugins.ExtractRequest{Data: data}); err == nil || !strings.Contains(err.Error(), "max_bytes") {
		t.Errorf("over max_bytes: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, b := range backends(t) {
		e := New()
		e.Configure(context.Background(), plugins.Options{"backend": b})
		if _, err := e.Extract(ctx, plugins.ExtractRequest{Data: data}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: canceled context: %v", b, err)
		}
		e.Configure(context.Background(), plugins.Options{"backend": b, "timeout": "1ns"})
		if _, err := e.Extract(context.Background(), plugins.ExtractRequest{Data: data}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: timeout: %v", b, err)
		}
	}
	for _, o := range []plugins.Options{
		{"backend": "mupdf"}, {"timeout": "soon"}, {"max_bytes": -1}, {"strip_headers": "yes"},
		{"pdftotext": "/nonexistent/pdftotext"}, {"colour": true},
	} {
		if err := New().Configure(context.Background(), o); err == nil {
			t.Errorf("Configure(%v) accepted", o)
		}
	}
	info, _ := New().ExtractorInfo(context.Background())
	if info.Name != "pdf" || !slices.Equal(info.Extensions, []string{".pdf"}) || info.MediaTypes[0] != "application/pdf" {
		t.Errorf("info %+v", info)
	}
}

// TestConcurrent runs extractions in parallel (for the race detector).
func TestConcurrent(t *testing.T) {
	data := fixture(t, "office.pdf")
	for _, b := range backends(t) {
		e := New()
		e.Configure(context.Background(), plugins.Options{"backend": b})
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if _, err := e.Extract(context.Background(), plugins.ExtractRequest{Data: data}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
}

func TestDehyphenate(t *testing.T) {
	tests := []struct{ in, want []string }{
		{[]string{"the retrie-", "val of text"}, []string{"the retrieval", "of text"}},
		{[]string{"whole retrie-", "val"}, []string{"whole retrieval"}},
		{[]string{"soft hy\u00ad", "phen here"}, []string{"soft hyphen", "here"}},
		{[]string{"keep ex-", "Ante"}, []string{"keep ex-", "Ante"}},
		{[]string{"range 1-", "2"}, []string{"range 1-", "2"}},
		{[]string{"dash -", "word"}, []string{"dash -", "word"}},
		{[]string{"end-", ""}, []string{"end-", ""}},
	}
	for _, tc := range tests {
		if got := dehyphenate(slices.Clone(tc.in)); !slices.Equal(got, tc.want) {
			t.Errorf("dehyphenate(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestStripRepeated(t *testing.T) {
	pages := [][]string{
		{"Annual Report 2024", "", "Intro text", "", "Page 1 of 3"},
		{"Annual Report 2024", "", "Middle text", "", "Page 2 of 3"},
		{"Annual Report 2024", "Closing text", "", "Page 3 of 3"},
	}
	stripRepeated(pages)
	want := [][]string{{"Intro text"}, {"Middle text"}, {"Closing text"}}
	if !slices.EqualFunc(pages, want, slices.Equal) {
		t.Errorf("got %q", pages)
	}
	one := [][]string{{"Title", "text", "Page 1"}}
	stripRepeated(one)
	if len(one[0]) != 3 {
		t.Errorf("single page stripped: %q", one)
	}
}

func TestISODate(t *testing.T) {
	for in, want := range map[string]string{
		"D:20240501120000Z":       "2024-05-01T12:00:00Z",
		"D:20240501120000+02'00'": "2024-05-01T12:00:00+02:00",
		"D:20240501120000-0530":   "2024-05-01T12:00:00-05:30",
		"D:2024":                  "2024-01-01T00:00:00Z",
		"D:20240501":              "2024-05-01T00:00:00Z",
		"D:garbage":               "D:garbage",
		"2024-05-01T12:00:00Z":    "2024-05-01T12:00:00Z",
	} {
		if got := isoDate(in); got != want {
			t.Errorf("isoDate(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTitle(t *testing.T) {
	for _, tc := range []struct{ info, text, want string }{
		{"Real Title", "first line", "Real Title"},
		{"Microsoft Word - notes.docx", "Meeting notes\nmore", "Meeting notes"},
		{"untitled", "\n\n  First  \n", "First"},
		{"", "", ""},
	} {
		if got := title(tc.info, tc.text); got != tc.want {
			t.Errorf("title(%q, %q) = %q, want %q", tc.info, tc.text, got, tc.want)
		}
	}
}

func TestGoBackendTimeoutReturns(t *testing.T) {
	// goExtract returns when the context ends even if parsing went on.
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	<-ctx.Done()
	if _, err := goExtract(ctx, fixture(t, "office.pdf")); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v", err)
	}
}

// TestVariants reads the report re-saved by qpdf: owner-password AES-128
// (opens without a password), object and cross-reference streams, and
// AES-256, which only poppler decrypts.
func TestVariants(t *testing.T) {
	for _, b := range backends(t) {
		for _, f := range []string{"protected.pdf", "objstm.pdf", "aes256.pdf"} {
			t.Run(b+"/"+f, func(t *testing.T) {
				e := New()
				e.Configure(context.Background(), plugins.Options{"backend": b})
				x, err := e.Extract(context.Background(), plugins.ExtractRequest{Path: f, Data: fixture(t, f)})
				if f == "aes256.pdf" && b == "go" {
					if !errors.Is(err, ErrEncrypted) || !strings.Contains(err.Error(), "poppler-utils") {
						t.Errorf("want ErrEncrypted suggesting poppler-utils, got %v", err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if x.Title != "Retrieval Fixture Report" || len(x.Pages) != 3 || !strings.Contains(x.Text, "3. Evaluation") {
					t.Errorf("title %q, %d pages, text %q", x.Title, len(x.Pages), x.Text)
				}
			})
		}
	}
}

func TestInfoText(t *testing.T) {
	for in, want := range map[string]string{
		"Plain":                     "Plain",
		"\xfe\xff\x00A\x03\xa9":     "AΩ",
		"Padded\x03\x03\x03":        "Padded",
		"\x8dquoted\x8e \x84":       "“quoted” —",
		"\xef\xbb\xbfUTF-8 ünïcode": "UTF-8 ünïcode",
		"caf\xe9":                   "café",
	} {
		if got := infoText(in); got != want {
			t.Errorf("infoText(%q) = %q, want %q", in, got, want)
		}
	}
}
