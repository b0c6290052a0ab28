package ingest_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
)

// reads counts the files a pass reads.
type reads struct {
	mu sync.Mutex
	n  map[string]int
}

func countReads(t *testing.T) *reads {
	r := &reads{n: map[string]int{}}
	t.Cleanup(ingest.SetReadHook(func(abs string) {
		r.mu.Lock()
		r.n[filepath.Base(abs)]++
		r.mu.Unlock()
	}))
	return r
}

func (r *reads) take() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := r.n
	r.n = map[string]int{}
	return n
}

// A pass skips a file whose size, modification time, inode and ctime are
// those it was read with, without reading it; it reads every other one.
func TestUnchangedFilesAreNotRead(t *testing.T) {
	defer ingest.SetRacyWindow(0)() // everything was written before it was read
	r := countReads(t)
	vault := t.TempDir()
	files := indextest.WriteVault(t, vault, indextest.SampleVault)
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	if res := indextest.Sync(t, s, "v", files); res.Indexed != 4 {
		t.Fatalf("first pass %+v", res)
	}
	if n := r.take(); len(n) != 4 {
		t.Fatalf("first pass read %v", n)
	}
	if res := indextest.Sync(t, s, "v", indextest.Restat(t, files)); res.Unchanged != 4 {
		t.Fatalf("second pass %+v", res)
	}
	if n := r.take(); len(n) != 0 {
		t.Errorf("the second pass read unchanged files: %v", n)
	}

	// The same size and modification time, new bytes: the ctime moved.
	garden := filepath.Join(vault, "garden.md")
	fi, _ := os.Stat(garden)
	body := []byte(indextest.SampleVault["garden.md"])
	copy(body[len(body)-7:], "SLUGS.\n")
	if err := os.WriteFile(garden, body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(garden, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	// Another file of the same size and time renamed into place: the inode
	// moved (an editor's atomic save).
	backup := filepath.Join(vault, "backup.md")
	bi, _ := os.Stat(backup)
	b2 := []byte(indextest.SampleVault["backup.md"])
	copy(b2[len(b2)-6:], "ZONES\n")
	tmp := backup + ".tmp"
	if err := os.WriteFile(tmp, b2, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, bi.ModTime(), bi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, backup); err != nil {
		t.Fatal(err)
	}
	res := indextest.Sync(t, s, "v", indextest.Restat(t, files))
	if n := r.take(); len(n) != 2 || n["garden.md"] != 1 || n["backup.md"] != 1 {
		t.Errorf("third pass read %v, want the two rewritten files", n)
	}
	if res.Indexed != 2 || res.Unchanged != 2 {
		t.Errorf("third pass %+v", res)
	}
	for q, want := range map[string]string{"slugs": "garden.md", "zones": "backup.md"} {
		if got := indextest.Search(t, s, q); len(got) != 1 || got[0] != want {
			t.Errorf("%q found in %v, want %s", q, got, want)
		}
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// A file read within the racy window of its last change is read again by
// the next pass, which then records the stat it read the unchanged file
// with, so the pass after that trusts it.
func TestRacilyCleanFilesAreReadAgainThenTrusted(t *testing.T) {
	restore := ingest.SetRacyWindow(time.Hour) // every file was just changed
	r := countReads(t)
	files := indextest.WriteVault(t, t.TempDir(), indextest.SampleVault)
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	indextest.Sync(t, s, "v", files)
	r.take()
	before, _ := s.Document("v", "garden.md")
	if res := indextest.Sync(t, s, "v", indextest.Restat(t, files)); res.Unchanged != 4 {
		t.Fatalf("second pass %+v", res)
	}
	if n := r.take(); len(n) != 4 {
		t.Errorf("the second pass read %v, want every racily clean file", n)
	}
	after, _ := s.Document("v", "garden.md")
	if after.StatAt <= before.StatAt || after.Hash != before.Hash || after.IndexedAt != before.IndexedAt {
		t.Errorf("record not refreshed: before %+v, after %+v", before, after)
	}
	restore()
	defer ingest.SetRacyWindow(0)()
	indextest.Sync(t, s, "v", indextest.Restat(t, files))
	if n := r.take(); len(n) != 0 {
		t.Errorf("the third pass read %v", n)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
