package ingest_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
)

// fakeExtractor counts its calls; fn decides the outcome per call.
type fakeExtractor struct {
	mu    sync.Mutex
	calls []string // rel of each call
	fn    func(rel, sha string, data []byte) (*ingest.Extracted, bool, error)
}

func (f *fakeExtractor) extract(rel, sha string, data []byte) (*ingest.Extracted, bool, error) {
	f.mu.Lock()
	f.calls = append(f.calls, rel)
	fn := f.fn
	f.mu.Unlock()
	return fn(rel, sha, data)
}

func (f *fakeExtractor) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

// report is what the fake PDF extractor produces: page 2 begins at line 4.
//
//	1 # Quarterly Report
//	2
//	3 Revenue grew in the northern region.
//	4
//	5 ## Outlook
//	6
//	7 Hiring freezes continue next quarter.
var report = ingest.Extracted{
	Text:      "# Quarterly Report\n\nRevenue grew in the northern region.\n\n## Outlook\n\nHiring freezes continue next quarter.\n",
	Markdown:  true,
	Pages:     []int{1, 4},
	Extractor: "fakepdf/1",
}

var pdfVault = map[string]string{
	"docs/report.pdf": "%PDF-1.4 not really a pdf",
	"note.md":         "# Note\n\nPlain markdown about revenue.\n",
}

func syncExtract(t *testing.T, s *index.Store, files []ingest.File, ex ingest.ExtractFunc) ingest.SyncResult {
	t.Helper()
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v", Extract: ex}, files)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestExtractHookIndexesPDF(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	files := indextest.WriteVault(t, t.TempDir(), pdfVault)
	sum := sha256.Sum256([]byte(pdfVault["docs/report.pdf"]))
	wantSHA := hex.EncodeToString(sum[:])
	var gotSHA, gotData string
	ex := &fakeExtractor{fn: func(rel, sha string, data []byte) (*ingest.Extracted, bool, error) {
		if !strings.HasSuffix(rel, ".pdf") {
			return nil, false, nil
		}
		gotSHA, gotData = sha, string(data)
		x := report
		return &x, true, nil
	}}
	res := syncExtract(t, s, files, ex.extract)
	if res.Indexed != 2 || res.Failed != 0 {
		t.Fatalf("sync = %+v", res)
	}
	if !reflect.DeepEqual(ex.calls, []string{"docs/report.pdf"}) {
		t.Errorf("extractor called for %q, want only the PDF (Markdown is read as is)", ex.calls)
	}
	if gotSHA != wantSHA || gotData != pdfVault["docs/report.pdf"] {
		t.Errorf("extractor got sha %q and data %q", gotSHA, gotData)
	}

	d, err := s.Document("v", "docs/report.pdf")
	if err != nil || d == nil {
		t.Fatalf("document: %v %v", d, err)
	}
	if d.Status != index.StatusOK || d.Kind != "pdf" || d.Title != "Quarterly Report" || d.Chunks != 2 ||
		!reflect.DeepEqual(d.Pages, []int{1, 4}) || !strings.HasSuffix(d.Pipeline, "|fakepdf/1") || d.Hash != wantSHA {
		t.Errorf("document = %+v", d)
	}

	// Searchable, with each chunk's page.
	for q, want := range map[string]struct{ line, page int }{
		"northern region revenue": {3, 1},
		"hiring freezes":          {7, 2},
	} {
		hs := s.Search(s.Analyzer().AppendTerms(nil, q), 5, nil)
		if len(hs) == 0 || hs[0].Path != "docs/report.pdf" {
			t.Errorf("%q → %+v, want the PDF first", q, hs)
			continue
		}
		cs, err := s.Chunks([]index.ChunkRef{hs[0].Ref})
		if err != nil {
			t.Fatal(err)
		}
		if c := cs[0]; c.LineStart != want.line || c.Page != want.page || hs[0].LineStart != want.line {
			t.Errorf("%q: chunk lines %d-%d page %d, want line %d page %d", q, c.LineStart, c.LineEnd, c.Page, want.line, want.page)
		}
	}
	// Markdown chunks carry no page.
	hs := s.Search(s.Analyzer().AppendTerms(nil, "plain markdown"), 1, nil)
	if cs, _ := s.Chunks([]index.ChunkRef{hs[0].Ref}); hs[0].Path != "note.md" || cs[0].Page != 0 {
		t.Errorf("markdown chunk = %+v page %d", hs[0], cs[0].Page)
	}

	// Unchanged bytes: not extracted again.
	res = syncExtract(t, s, files, ex.extract)
	if res.Unchanged != 2 || ex.count() != 1 {
		t.Errorf("resync = %+v with %d extractions, want both unchanged and no new extraction", res, ex.count())
	}
	// Changed bytes: extracted again.
	if err := os.WriteFile(files[indexOf(files, "docs/report.pdf")].Abs, []byte("%PDF-1.4 edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	files = indextest.Restat(t, files)
	if res = syncExtract(t, s, files, ex.extract); res.Indexed != 1 || ex.count() != 2 {
		t.Errorf("after an edit = %+v with %d extractions", res, ex.count())
	}
}

func indexOf(files []ingest.File, rel string) int {
	for i, f := range files {
		if f.Rel == rel {
			return i
		}
	}
	panic(rel)
}

func TestExtractPlainTextTitleAndEmpty(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	files := indextest.WriteVault(t, t.TempDir(), map[string]string{"a.html": "<p>x</p>", "b.docx": "PK", "blank.pdf": "%PDF"})
	ex := func(rel, _ string, _ []byte) (*ingest.Extracted, bool, error) {
		switch rel {
		case "a.html":
			return &ingest.Extracted{Text: "First paragraph about kites.\n\nSecond paragraph about string.\n", Extractor: "html/1"}, true, nil
		case "b.docx":
			return &ingest.Extracted{Text: "# Heading Ignored As Title\n\nBody about otters.\n", Markdown: true, Title: "Given Title", Extractor: "docx/2"}, true, nil
		}
		return &ingest.Extracted{Text: " \n\n ", Extractor: "pdf/1"}, true, nil
	}
	if res := syncExtract(t, s, files, ex); res.Indexed != 2 || res.Failed != 1 {
		t.Fatalf("sync = %+v", res)
	}
	a, _ := s.Document("v", "a.html")
	if a.Kind != "html" || a.Title != "a" || a.Status != index.StatusOK {
		t.Errorf("plain extraction = %+v, want kind html and the file name as title", a)
	}
	if hs := s.Search(s.Analyzer().AppendTerms(nil, "kites"), 1, nil); len(hs) != 1 || hs[0].Path != "a.html" {
		t.Errorf("kites → %+v", hs)
	}
	b, _ := s.Document("v", "b.docx")
	if b.Kind != "docx" || b.Title != "Given Title" {
		t.Errorf("docx = %+v, want the extractor's title", b)
	}
	blank, _ := s.Document("v", "blank.pdf")
	if blank.Status != index.StatusFailed || !strings.Contains(blank.Error, "no text") {
		t.Errorf("blank extraction = %+v", blank)
	}
}

func TestExtractNotHandledFails(t *testing.T) {
	for name, ex := range map[string]ingest.ExtractFunc{
		"nil hook": nil,
		"not handled": func(string, string, []byte) (*ingest.Extracted, bool, error) {
			return nil, false, nil
		},
	} {
		t.Run(name, func(t *testing.T) {
			s := indextest.Open(t, t.TempDir())
			defer s.Close()
			files := indextest.WriteVault(t, t.TempDir(), pdfVault)
			if res := syncExtract(t, s, files, ex); res.Indexed != 1 || res.Failed != 1 {
				t.Fatalf("sync = %+v", res)
			}
			d, _ := s.Document("v", "docs/report.pdf")
			if d == nil || d.Status != index.StatusFailed || !strings.Contains(d.Error, "no extractor") || !strings.Contains(d.Error, ".pdf") {
				t.Fatalf("document = %+v, want failed: no extractor for .pdf", d)
			}
			if res := syncExtract(t, s, files, ex); res.Unchanged != 2 {
				t.Errorf("resync = %+v, want both unchanged", res)
			}
		})
	}
}

func TestExtractTransientRetriedPermanentNot(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	files := indextest.WriteVault(t, t.TempDir(), map[string]string{"slow.pdf": "%PDF slow", "locked.pdf": "%PDF locked"})
	fail := true
	ex := &fakeExtractor{fn: func(rel, _ string, _ []byte) (*ingest.Extracted, bool, error) {
		switch {
		case rel == "locked.pdf":
			return nil, true, errors.New("document is encrypted")
		case fail:
			return nil, true, fmt.Errorf("plugin pdf: %w: timed out after 30s", ingest.ErrTransient)
		}
		x := report
		return &x, true, nil
	}}
	calls := func(rel string) int {
		ex.mu.Lock()
		defer ex.mu.Unlock()
		n := 0
		for _, c := range ex.calls {
			if c == rel {
				n++
			}
		}
		return n
	}

	if res := syncExtract(t, s, files, ex.extract); res.Failed != 2 || len(res.Retry) != 1 || res.Retry[0] != "slow.pdf" {
		t.Fatalf("first sync = %+v, want 2 failed and slow.pdf to retry", res)
	}
	for _, p := range []string{"slow.pdf", "locked.pdf"} {
		d, _ := s.Document("v", p)
		if d == nil || d.Status != index.StatusFailed || !strings.Contains(d.Error, "extraction failed") || d.Retry != (p == "slow.pdf") {
			t.Errorf("%s = %+v", p, d)
		}
	}

	// Same bytes: the transient failure is tried again, the permanent one
	// is not.
	res := syncExtract(t, s, files, ex.extract)
	if calls("slow.pdf") != 2 || calls("locked.pdf") != 1 {
		t.Errorf("second sync extracted slow.pdf %d times and locked.pdf %d times, want 2 and 1", calls("slow.pdf"), calls("locked.pdf"))
	}
	if res.Unchanged != 1 || res.Failed != 1 {
		t.Errorf("second sync = %+v, want locked.pdf unchanged and slow.pdf failed again", res)
	}

	// The plugin recovers: the file is indexed without any change on disk.
	fail = false
	res = syncExtract(t, s, files, ex.extract)
	if res.Indexed != 1 || calls("slow.pdf") != 3 || calls("locked.pdf") != 1 {
		t.Errorf("third sync = %+v (slow.pdf %d calls, locked.pdf %d)", res, calls("slow.pdf"), calls("locked.pdf"))
	}
	if d, _ := s.Document("v", "slow.pdf"); d == nil || d.Status != index.StatusOK || d.Kind != "pdf" {
		t.Errorf("slow.pdf after recovery = %+v", d)
	}
	if hs := s.Search(s.Analyzer().AppendTerms(nil, "hiring freezes"), 1, nil); len(hs) != 1 || hs[0].Path != "slow.pdf" {
		t.Errorf("search after recovery = %+v", hs)
	}
}

// A PDF first seen when no extractor takes PDFs must be extracted once one
// does (a plugin configured later), without the user touching the file.
func TestExtractorConfiguredLaterIndexesOldFailures(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	files := indextest.WriteVault(t, t.TempDir(), pdfVault)
	none := func(string, string, []byte) (*ingest.Extracted, bool, error) { return nil, false, nil }
	syncExtract(t, s, files, none)
	ex := &fakeExtractor{fn: func(string, string, []byte) (*ingest.Extracted, bool, error) { x := report; return &x, true, nil }}
	syncExtract(t, s, files, ex.extract)
	d, _ := s.Document("v", "docs/report.pdf")
	if d == nil {
		t.Fatal("docs/report.pdf is not recorded")
	}
	if d.Status != index.StatusOK {
		t.Errorf("BUG: a file recorded as failed with %q is never offered to an extractor configured later "+
			"while its bytes are unchanged (extractor called %d times; document %+v): prepareFile treats it as "+
			"up to date because hash and pipeline match", d.Error, ex.count(), d)
	}
}

func TestExtractionCacheRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := indextest.Open(t, dir)
	const sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	if x, ok := ingest.New(s, ingest.Options{}).CachedExtraction(sha, "fakepdf/1"); ok || x != nil {
		t.Fatalf("empty cache returned %+v", x)
	}
	want := report
	want.Title = "Cached"
	ingest.New(s, ingest.Options{}).CacheExtraction(sha, "fakepdf/1", &want)
	x, ok := ingest.New(s, ingest.Options{}).CachedExtraction(sha, "fakepdf/1")
	if !ok || !reflect.DeepEqual(*x, want) {
		t.Fatalf("cached = %+v, %v; want %+v", x, ok, want)
	}
	if _, ok := ingest.New(s, ingest.Options{}).CachedExtraction(sha, "fakepdf/2"); ok {
		t.Error("another extractor version hit the cache")
	}
	if _, ok := ingest.New(s, ingest.Options{}).CachedExtraction(strings.Replace(sha, "9f", "00", 1), "fakepdf/1"); ok {
		t.Error("other bytes hit the cache")
	}
	// Replaced in place, and kept across a reopen.
	want.Text = "# New\n\ntext\n"
	ingest.New(s, ingest.Options{}).CacheExtraction(sha, "fakepdf/1", &want)
	s.Close()
	s = indextest.Open(t, dir)
	defer s.Close()
	if x, ok := ingest.New(s, ingest.Options{}).CachedExtraction(sha, "fakepdf/1"); !ok || !reflect.DeepEqual(*x, want) {
		t.Errorf("after reopen = %+v, %v", x, ok)
	}
}
