package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
)

// A note whose text cannot fit in one transaction used to be read whole,
// chunked and analysed before the commit refused it (a 200 MB note: 735 MB
// of memory). Now it is recorded as failed, with the reason, unread; the
// other notes are indexed and the store stays consistent.
func TestNoteTooLargeIsFailedUnread(t *testing.T) {
	vault := t.TempDir()
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	files := indextest.WriteVault(t, vault, map[string]string{"small.md": "# Small\n\nThe otter swims.\n"})
	// A sparse file: 256 MB long, next to nothing on disk. Reading it
	// would allocate its length.
	const size = 256 << 20
	huge := filepath.Join(vault, "huge.md")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, size); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(huge)
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, ingest.File{Rel: "huge.md", Abs: huge, Size: fi.Size(), ModTime: fi.ModTime()})

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	opt := ingest.SyncOptions{Vault: "v"}
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), opt, files)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 1 || res.Failed != 1 {
		t.Fatalf("sync = %+v, want small.md indexed and huge.md failed", res)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("the pass allocated %d MB for a %d MB note refused: it was read", alloc>>20, size>>20)
	}
	d, err := s.Document("v", "huge.md")
	if err != nil || d == nil || d.Status != index.StatusFailed ||
		!strings.Contains(d.Error, "too large to index in one transaction (256.0 MB of text") {
		t.Fatalf("huge.md = %+v, %v", d, err)
	}
	if got := indextest.Search(t, s, "otter"); len(got) != 1 || got[0] != "small.md" {
		t.Errorf("otter → %v", got)
	}
	// The next pass leaves it as it is.
	if res, err = ingest.New(s, ingest.Options{}).Sync(context.Background(), opt, files); err != nil || res.Unchanged != 2 {
		t.Errorf("second sync = %+v, %v; want both unchanged", res, err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// The text an extractor produced is held to the same limit: the file is
// failed with the reason (not retried as if the extractor had crashed),
// and the rest is indexed.
func TestExtractedTextTooLargeIsFailed(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	files := indextest.WriteVault(t, t.TempDir(), pdfVault)
	text := strings.Repeat("revenue ", int(s.MaxDocumentBytes()*2/8))
	ex := &fakeExtractor{fn: func(string, string, []byte) (*ingest.Extracted, bool, error) {
		return &ingest.Extracted{Text: text, Extractor: "fakepdf/1"}, true, nil
	}}
	if res := syncExtract(t, s, files, ex.extract); res.Indexed != 1 || res.Failed != 1 || len(res.Retry) != 0 {
		t.Fatalf("sync = %+v", res)
	}
	d, _ := s.Document("v", "docs/report.pdf")
	if d == nil || d.Status != index.StatusFailed || d.Retry || !strings.Contains(d.Error, "too large to index in one transaction") {
		t.Fatalf("report.pdf = %+v", d)
	}
	// Not extracted again until the file changes.
	if res := syncExtract(t, s, files, ex.extract); res.Unchanged != 2 || ex.count() != 1 {
		t.Errorf("second sync = %+v with %d extractions; want both unchanged, one extraction", res, ex.count())
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// A note of more than Badger's transaction limit in raw bytes is indexed
// whole: its chunk record goes to the value log, which a transaction
// counts as a pointer, and the bound is the store's own (MaxDocumentBytes).
func TestLargeNoteUnderTheBoundIsIndexed(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	var b strings.Builder
	b.WriteString("# Almanac\n\n")
	for i := 0; b.Len() < int(s.MaxDocumentBytes()*3/5); i++ {
		fmt.Fprintf(&b, "Entry %d records the tide at harbour %d and the wind from bearing %d.\n\n", i, i%97, i%360)
	}
	b.WriteString("The last entry names the lighthouse keeper Ingrid.\n")
	files := indextest.WriteVault(t, t.TempDir(), map[string]string{"almanac.md": b.String()})
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v"}, files)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 1 || res.Failed != 0 {
		d, _ := s.Document("v", "almanac.md")
		t.Fatalf("sync of a %.1f MB note = %+v (%+v)", float64(b.Len())/(1<<20), res, d)
	}
	if got := indextest.Search(t, s, "ingrid lighthouse"); len(got) != 1 || got[0] != "almanac.md" {
		t.Errorf("ingrid lighthouse → %v", got)
	}
}

// Many large notes in one pass are committed in as many transactions as
// their records need: none is refused by Badger (ErrTxnTooBig fails the
// pass) and every one is indexed.
func TestManyLargeNotesInOnePass(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	notes := map[string]string{}
	for n := range 12 {
		var b strings.Builder
		fmt.Fprintf(&b, "# Log %d\n\n", n)
		for i := 0; b.Len() < int(s.MaxDocumentBytes()/5); i++ {
			fmt.Fprintf(&b, "Line %d of log %d: the pump ran %d minutes.\n\n", i, n, i%61)
		}
		notes[fmt.Sprintf("log%02d.md", n)] = b.String()
	}
	files := indextest.WriteVault(t, t.TempDir(), notes)
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v"}, files)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != len(notes) || res.Failed != 0 {
		t.Fatalf("sync = %+v, want all %d indexed", res, len(notes))
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
