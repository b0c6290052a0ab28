package pdf

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/ragd/ragd/plugins"
)

// The quality test compares extracted words with pdftotext's. The
// references are committed (testdata/*.pdftotext, written by gen.go), so
// the pure-Go backend is measured on every machine; the pdftotext backend
// is measured when poppler is installed, and must be when
// RAGD_REQUIRE_PDFTOTEXT=1 (as in CI). RAGD_PDF_DUMP=dir writes every
// extraction there for a look.

var fixtures = []string{"report", "office", "cairo"}

const minOverlap = 0.95

// needPdftotext skips the test without pdftotext, unless it is required.
func needPdftotext(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("pdftotext")
	if err == nil {
		return p
	}
	if os.Getenv("RAGD_REQUIRE_PDFTOTEXT") == "1" {
		t.Fatal("RAGD_REQUIRE_PDFTOTEXT=1 but pdftotext is not on PATH (install poppler-utils)")
	}
	t.Skip("pdftotext not on PATH (install poppler-utils); set RAGD_REQUIRE_PDFTOTEXT=1 to make this a failure")
	return ""
}

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func extractWith(t testing.TB, backend string, strip bool, data []byte) plugins.Extraction {
	t.Helper()
	e := New()
	if err := e.Configure(context.Background(), plugins.Options{"backend": backend, "strip_headers": strip}); err != nil {
		t.Fatal(err)
	}
	x, err := e.Extract(context.Background(), plugins.ExtractRequest{Path: "fixture.pdf", Data: data})
	if err != nil {
		t.Fatalf("%s: %v", backend, err)
	}
	if dir := os.Getenv("RAGD_PDF_DUMP"); dir != "" {
		name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
		os.WriteFile(filepath.Join(dir, name+".txt"), []byte(x.Text), 0o644)
	}
	return x
}

// words splits text into lower-case words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// overlap returns recall (share of the reference's words found) and
// precision (share of the extracted words that are in the reference),
// counting words as multisets.
func overlap(got, ref string) (recall, precision float64) {
	count := map[string]int{}
	r := words(ref)
	for _, w := range r {
		count[w]++
	}
	g := words(got)
	common := 0
	for _, w := range g {
		if count[w] > 0 {
			count[w]--
			common++
		}
	}
	if len(r) == 0 || len(g) == 0 {
		return 0, 0
	}
	return float64(common) / float64(len(r)), float64(common) / float64(len(g))
}

func checkOverlap(t *testing.T, what, got, ref string) {
	t.Helper()
	rec, prec := overlap(got, ref)
	t.Logf("%s: recall %.4f precision %.4f (%d reference words)", what, rec, prec, len(words(ref)))
	if rec < minOverlap || prec < minOverlap {
		t.Errorf("%s: word overlap with pdftotext below %.2f: recall %.4f precision %.4f", what, minOverlap, rec, prec)
	}
}

// TestQualityGo measures the pure-Go backend against the committed
// pdftotext references, whole documents and page by page.
func TestQualityGo(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f, func(t *testing.T) {
			ref := string(fixture(t, f+".pdftotext"))
			data := fixture(t, f+".pdf")
			x := extractWith(t, "go", false, data)
			checkOverlap(t, "go, headers kept", x.Text, ref)
			checkPages(t, x, ref, 0.9)
			x = extractWith(t, "go", true, data)
			checkOverlap(t, "go, headers stripped", x.Text, ref)
			checkPages(t, x, ref, 0)
		})
	}
}

// TestQualityPdftotext measures the pdftotext backend (after its own
// post-processing) against pdftotext run here and against the committed
// reference.
func TestQualityPdftotext(t *testing.T) {
	bin := needPdftotext(t)
	for _, f := range fixtures {
		t.Run(f, func(t *testing.T) {
			data := fixture(t, f+".pdf")
			live, err := exec.Command(bin, "-enc", "UTF-8", filepath.Join("testdata", f+".pdf"), "-").Output()
			if err != nil {
				t.Fatal(err)
			}
			checkPages(t, extractWith(t, "pdftotext", false, data), string(live), 0.9)
			x := extractWith(t, "pdftotext", true, data)
			if x.Metadata["extractor"] != "pdftotext" {
				t.Fatalf("extractor %q", x.Metadata["extractor"])
			}
			checkOverlap(t, "pdftotext backend vs pdftotext", x.Text, string(live))
			checkOverlap(t, "pdftotext backend vs committed reference", x.Text, string(fixture(t, f+".pdftotext")))
			checkPages(t, x, string(live), 0)
			g := extractWith(t, "go", true, data)
			checkOverlap(t, "go vs pdftotext backend", g.Text, x.Text)
		})
	}
}

// checkPages checks that the lines Pages assigns to each page hold that
// page's words (ref has a form feed after every page): at least 90% of
// them are the reference page's, and at least minRecall of the reference
// page's words are there (headers and footers may have been stripped).
func checkPages(t *testing.T, x plugins.Extraction, ref string, minRecall float64) {
	t.Helper()
	refPages := strings.Split(strings.TrimSuffix(ref, "\f"), "\f")
	if len(x.Pages) != len(refPages) {
		t.Fatalf("%d pages, reference has %d", len(x.Pages), len(refPages))
	}
	lines := strings.Split(x.Text, "\n")
	for i, p := range x.Pages {
		if p.Number != i+1 {
			t.Errorf("page %d numbered %d", i+1, p.Number)
		}
		end := len(lines)
		if i+1 < len(x.Pages) {
			end = x.Pages[i+1].StartLine - 1
		}
		got := strings.Join(lines[p.StartLine-1:end], "\n")
		rec, prec := overlap(got, refPages[i])
		if rec < minRecall || prec < 0.9 {
			t.Errorf("page %d (lines %d-%d): overlap with the reference page: recall %.3f precision %.3f\n%s",
				i+1, p.StartLine, end, rec, prec, got)
		}
	}
}
