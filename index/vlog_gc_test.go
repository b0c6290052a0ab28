package index_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
)

// Replaced records leave garbage in the value log; gcValueLog reclaims it
// and the index stays whole.
func TestValueLogGarbageIsCollected(t *testing.T) {
	defer index.SetValueLogFileSize(1 << 20)()
	vault, dir := t.TempDir(), t.TempDir()
	write := func(version string) []ingest.File {
		notes := map[string]string{}
		for i := range 40 {
			var b strings.Builder
			for j := 0; b.Len() < 60_000; j++ {
				fmt.Fprintf(&b, "Paragraph %d of note %d, %s edition, word%d%s.\n\n", j, i, version, j%97, version)
			}
			notes[fmt.Sprintf("n%02d.md", i)] = b.String()
		}
		return indextest.WriteVault(t, vault, notes)
	}
	vlogBytes := func() int64 {
		var n int64
		ms, _ := filepath.Glob(filepath.Join(dir, "*.vlog"))
		for _, m := range ms {
			if fi, err := os.Stat(m); err == nil {
				n += fi.Size()
			}
		}
		return n
	}
	ctx := context.Background()
	var s *index.Store
	for _, v := range []string{"first", "second", "third"} {
		// Each edition's keys reach a table of their own (Close flushes
		// the memtable), so compaction sees the replaced versions.
		s = indextest.Open(t, dir)
		if _, err := ingest.New(s, ingest.Options{}).Sync(ctx, ingest.SyncOptions{Vault: "v"}, write(v)); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	s = indextest.Open(t, dir)
	defer s.Close()
	if err := s.Flatten(1); err != nil { // compaction counts the garbage
		t.Fatal(err)
	}
	before := vlogBytes()
	if n := s.GCValueLog(); n == 0 {
		t.Fatalf("nothing collected from %d bytes of value log", before)
	}
	if after := vlogBytes(); after >= before {
		t.Errorf("value log %d bytes after collection, %d before", after, before)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if got := indextest.Search(t, s, "word5third"); len(got) == 0 {
		t.Error("the last edition is not found")
	}
	if got := indextest.Search(t, s, "word5first"); len(got) != 0 {
		t.Errorf("the first edition is still found: %v", got)
	}
	hits := s.Search([]string{"paragraph"}, 3, nil)
	refs := make([]index.ChunkRef, len(hits))
	for i, h := range hits {
		refs[i] = h.Ref
	}
	chunks, err := s.Chunks(refs)
	if err != nil || len(chunks) != 3 || !strings.Contains(chunks[0].Text, "third edition") {
		t.Fatalf("chunks after collection: %+v, %v", chunks, err)
	}
}
