package index_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/segment"
)

// rebuildVault is n notes, each findable by a word of its own.
func rebuildVault(n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nThe word zq%dx is only here, beside common words.\n", i, i)
	}
	return files
}

// everyNoteFound fails t unless each note of rebuildVault(n) is the hit
// for its own word, and the store is consistent.
func everyNoteFound(t *testing.T, s *index.Store, n int, when string) {
	t.Helper()
	var missing []string
	for i := range n {
		got := indextest.Search(t, s, fmt.Sprintf("zq%dx", i))
		if want := fmt.Sprintf("n%02d.md", i); len(got) != 1 || got[0] != want {
			missing = append(missing, want)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s: %d of %d notes not found: %s", when, len(missing), n, strings.Join(missing, " "))
	}
	if err := s.Check(); err != nil {
		t.Errorf("%s: consistency check: %v", when, err)
	}
}

// copyDir copies the regular files of src (not the .tmp ones a write in
// progress leaves) into a new directory dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o700); err != nil {
		t.Fatal(err)
	}
	es, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if !e.Type().IsRegular() || strings.HasSuffix(e.Name(), ".tmp") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestLostSegmentsAreRebuilt: a store whose segments cover nothing (their
// manifest gone) although it has committed notes rebuilds them from its
// records rather than replaying a journal that flushes have emptied; and a
// rebuild cut short after any of its flushes (what a kill -9 would leave)
// is rebuilt again at the next open, never taken as whole.
func TestLostSegmentsAreRebuilt(t *testing.T) {
	const n = 40
	vault, data := t.TempDir(), t.TempDir()
	s := indextest.Open(t, data)
	indextest.SyncMap(t, s, vault, rebuildVault(n))
	everyNoteFound(t, s, n, "indexed")
	if err := s.Close(); err != nil { // flushes: the journal is emptied
		t.Fatal(err)
	}
	segs := filepath.Join(data, "segments")
	if err := os.Remove(filepath.Join(segs, "MANIFEST")); err != nil {
		t.Fatal(err)
	}

	// Reopen with every rebuild batch of one note flushed to a file of its
	// own, keeping a copy of the segments as each flush left them.
	defer index.SetReplayBatch(1)()
	var mu sync.Mutex
	var snaps []string
	var seqs []uint64
	snapRoot := t.TempDir()
	index.TuneSegments = func(o *segment.Options) {
		o.FlushBytes = 1
		onFlush := o.OnFlush
		o.OnFlush = func(seq uint64) {
			mu.Lock()
			dst := filepath.Join(snapRoot, fmt.Sprint(len(snaps)))
			copyDir(t, o.Dir, dst)
			snaps, seqs = append(snaps, dst), append(seqs, seq)
			mu.Unlock()
			if onFlush != nil {
				onFlush(seq)
			}
		}
	}
	defer func() { index.TuneSegments = nil }()
	s = indextest.Open(t, data)
	everyNoteFound(t, s, n, "after the manifest was lost")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	index.TuneSegments = nil
	mu.Lock()
	defer mu.Unlock()
	if len(snaps) == 0 {
		t.Fatal("the rebuild flushed nothing")
	}
	partial := 0
	for _, seq := range seqs {
		if seq == 0 {
			partial++
		}
	}
	t.Logf("%d flushes during the rebuild, %d of them before its end", len(snaps), partial)
	for i, snap := range snaps {
		if err := os.RemoveAll(segs); err != nil {
			t.Fatal(err)
		}
		copyDir(t, snap, segs)
		s = indextest.Open(t, data)
		everyNoteFound(t, s, n, fmt.Sprintf("a kill after flush %d of the rebuild (change %d)", i+1, seqs[i]))
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOldFormatSegmentsAreRebuilt: segments of an older format version
// (version 1 had no block bounds) fail to open, and the store rebuilds them
// from its records in the current format.
func TestOldFormatSegmentsAreRebuilt(t *testing.T) {
	const n = 30
	vault, data := t.TempDir(), t.TempDir()
	s := indextest.Open(t, data)
	indextest.SyncMap(t, s, vault, rebuildVault(n))
	if err := s.Close(); err != nil { // flushes the segments to files
		t.Fatal(err)
	}
	segs := filepath.Join(data, "segments")
	version := func(want uint32, set bool) int {
		t.Helper()
		es, err := os.ReadDir(segs)
		if err != nil {
			t.Fatal(err)
		}
		files := 0
		for _, e := range es {
			name := filepath.Join(segs, e.Name())
			b, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			if e.Name() == "MANIFEST" || len(b) < 12 || string(b[:7]) != "RAGDSEG" {
				continue
			}
			files++
			if set {
				binary.LittleEndian.PutUint32(b[8:], want)
				if err := os.WriteFile(name, b, 0o600); err != nil {
					t.Fatal(err)
				}
			} else if v := binary.LittleEndian.Uint32(b[8:]); v != want {
				t.Errorf("segment %s is of version %d, want %d", e.Name(), v, want)
			}
		}
		return files
	}
	if version(1, true) == 0 {
		t.Fatal("no segment file was written")
	}
	s = indextest.Open(t, data)
	everyNoteFound(t, s, n, "after the segments were found to be of version 1")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if version(3, false) == 0 {
		t.Fatal("no segment file after the rebuild")
	}
}
