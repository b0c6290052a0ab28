package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
)

func TestSyncChangesAndUnchanged(t *testing.T) {
	vault := t.TempDir()
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	ctx := context.Background()
	opt := ingest.SyncOptions{Vault: "v"}
	if _, err := ingest.New(s, ingest.Options{}).Sync(ctx, opt, indextest.WriteVault(t, vault, indextest.SampleVault)); err != nil {
		t.Fatal(err)
	}
	before := s.Stats()
	res, err := ingest.New(s, ingest.Options{}).Sync(ctx, opt, indextest.WriteVault(t, vault, indextest.SampleVault))
	if err != nil {
		t.Fatal(err)
	}
	if res.Unchanged != 4 || res.Indexed != 0 {
		t.Fatalf("second sync = %+v", res)
	}
	if s.Stats() != before {
		t.Errorf("stats changed on a no-op sync: %+v → %+v", before, s.Stats())
	}

	changed := map[string]string{}
	for k, v := range indextest.SampleVault {
		changed[k] = v
	}
	changed["notes/travel.md"] = "# Lisbon\n\nThe funicular beats the tram.\n"
	delete(changed, "garden.md")
	os.Remove(filepath.Join(vault, "garden.md"))
	res, err = ingest.New(s, ingest.Options{}).Sync(ctx, opt, indextest.WriteVault(t, vault, changed))
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 1 || res.Removed != 1 || res.Unchanged != 2 {
		t.Fatalf("third sync = %+v", res)
	}
	if got := indextest.Search(t, s, "funicular"); !reflect.DeepEqual(got, []string{"notes/travel.md"}) {
		t.Errorf("funicular → %v", got)
	}
	if got := indextest.Search(t, s, "alfama"); len(got) != 0 {
		t.Errorf("old text still found: %v", got)
	}
	if got := indextest.Search(t, s, "aphids"); len(got) != 0 {
		t.Errorf("deleted note still found: %v", got)
	}
	if st := s.Stats(); st.Docs != 3 {
		t.Errorf("docs = %d", st.Docs)
	}
}

func TestBadFilesAreRecordedAsFailed(t *testing.T) {
	vault := t.TempDir()
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	files := indextest.WriteVault(t, vault, map[string]string{
		"ok.md":     "# Fine\n\nhello world\n",
		"empty.md":  "  \n\n",
		"binary.md": "PK\x03\x04\x00\x00binary",
		"latin1.md": "caf\xe9 au lait",
		"big.md":    strings.Repeat("word ", 400),
		"image.png": "not really",
	})
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v", MaxBytes: 1000}, files)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 1 || res.Failed != 5 {
		t.Fatalf("sync = %+v", res)
	}
	docs, err := s.Documents("v")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"empty.md": "empty file", "binary.md": "binary file", "latin1.md": "not valid UTF-8",
		"big.md": "over the vault's max_file_mb", "image.png": "no extractor",
	}
	for _, d := range docs {
		if w, ok := want[d.Path]; ok {
			if d.Status != index.StatusFailed || !strings.Contains(d.Error, w) {
				t.Errorf("%s: status %s error %q, want failure containing %q", d.Path, d.Status, d.Error, w)
			}
		} else if d.Status != index.StatusOK {
			t.Errorf("%s: %s %s", d.Path, d.Status, d.Error)
		}
	}
	// Unchanged failed files are not retried.
	res, err = ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v", MaxBytes: 1000}, files)
	if err != nil || res.Unchanged != 6 {
		t.Fatalf("resync = %+v, %v", res, err)
	}
	counts, _ := s.Counts()
	if c := counts["v"]; c.Documents != 1 || c.Failed != 5 {
		t.Errorf("counts = %+v", c)
	}
}

func TestUnreadableFile(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root can read a mode-000 file")
	}
	vault := t.TempDir()
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	files := indextest.WriteVault(t, vault, map[string]string{"secret.md": "# x\n\ny\n"})
	os.Chmod(files[0].Abs, 0)
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v"}, files)
	if err != nil || res.Failed != 1 {
		t.Fatalf("sync = %+v, %v", res, err)
	}
	d, _ := s.Document("v", "secret.md")
	if d == nil || !strings.Contains(d.Error, "unreadable") {
		t.Fatalf("doc = %+v", d)
	}
}

func TestChangedChunkingReindexesUnchangedFiles(t *testing.T) {
	vault := t.TempDir()
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	files := indextest.WriteVault(t, vault, indextest.SampleVault)
	ctx := context.Background()
	if _, err := ingest.New(s, ingest.Options{}).Sync(ctx, ingest.SyncOptions{Vault: "v"}, files); err != nil {
		t.Fatal(err)
	}
	res, err := ingest.New(s, ingest.Options{}).Sync(ctx, ingest.SyncOptions{Vault: "v", Chunk: chunk.Options{ChildChars: 40, ChildOverlap: 5}}, files)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 4 {
		t.Fatalf("after a chunking change: %+v", res)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// failingStore is a real store whose writes all fail, as on a full disk.
type failingStore struct {
	*index.Store
	applies atomic.Int64
}

var errDiskFull = errors.New("no space left on device")

func (f *failingStore) Apply([]index.Op) error {
	f.applies.Add(1)
	return errDiskFull
}

// A failed write stops the pass: the rest of the vault is not read and
// chunked for nothing.
func TestWriteErrorStopsReadingTheVault(t *testing.T) {
	notes := map[string]string{}
	for i := range 1000 {
		notes[fmt.Sprintf("n%04d.md", i)] = fmt.Sprintf("# Note %d\n\nSome text of note %d.\n", i, i)
	}
	files := indextest.WriteVault(t, t.TempDir(), notes)
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	st := &failingStore{Store: s}
	var prepared atomic.Int64 // the enricher sees every note that was read and chunked
	enrich := func(string, string, []byte) (*graph.Enrichment, error) { prepared.Add(1); return nil, nil }
	const workers = 2
	_, err := ingest.New(st, ingest.Options{}).Sync(context.Background(),
		ingest.SyncOptions{Vault: "v", Workers: workers, Enrich: enrich, Enricher: "count"}, files)
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("sync error = %v, want the write error", err)
	}
	if n := st.applies.Load(); n != 1 {
		t.Errorf("%d writes attempted after the first failed", n-1)
	}
	// Before its first commit the writer holds at most one batch (256
	// documents); the queue to it holds 4 per worker, and each worker
	// finishes the note it is reading.
	if n, most := prepared.Load(), int64(256+4*workers+workers); n > most {
		t.Errorf("%d of %d notes read and chunked after a write failed; want at most %d", n, len(files), most)
	}
	if d, err := s.Document("v", "n0000.md"); err != nil || d != nil {
		t.Errorf("a document was stored: %+v, %v", d, err)
	}
}

// TestBulkPass indexes and then rewrites a vault large enough for a bulk
// pass (Store.BeginBulk): when each pass returns every note is found by its
// own words, no older copy is, and the store's kept counts match a recount.
func TestBulkPass(t *testing.T) {
	vault := t.TempDir()
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	for pass, word := range []string{"alpha", "bravo"} {
		files := map[string]string{}
		for i := range 600 {
			files[fmt.Sprintf("d%d/n%03d.md", i%7, i)] = fmt.Sprintf("# Note %d\n\nShared text with %s%03d in it.\n", i, word, i)
		}
		res := indextest.SyncMap(t, s, vault, files)
		if res.Indexed != 600 {
			t.Fatalf("pass %d: %+v", pass, res)
		}
		for _, i := range []int{0, 1, 299, 598, 599} {
			want := []string{fmt.Sprintf("d%d/n%03d.md", i%7, i)}
			if got := indextest.Search(t, s, fmt.Sprintf("%s%03d", word, i)); !reflect.DeepEqual(got, want) {
				t.Errorf("pass %d: %s%03d → %v, want %v", pass, word, i, got, want)
			}
			if got := indextest.Search(t, s, fmt.Sprintf("alpha%03d", i)); pass == 1 && len(got) != 0 {
				t.Errorf("pass %d: an older copy is still found: %v", pass, got)
			}
		}
		if err := s.Check(); err != nil {
			t.Fatalf("pass %d: %v", pass, err)
		}
	}
}

// The workers give way to the daemon's clients before each file and the
// writer before each commit (SyncOptions.Yield).
func TestSyncYields(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	files := indextest.WriteVault(t, t.TempDir(), indextest.SampleVault)
	var calls atomic.Int64
	opt := ingest.SyncOptions{Vault: "v", Yield: func() { calls.Add(1) }}
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), opt, files)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != len(files) {
		t.Fatalf("sync = %+v", res)
	}
	// One call a file, and at least one a commit.
	if n := calls.Load(); n < int64(len(files))+1 {
		t.Fatalf("Yield called %d times for %d files, want one a file and one a commit at least", n, len(files))
	}
}
