package index_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
)

// TestDiskFullRefusesWrites simulates a disk with too little room: every
// write is refused with a *DiskFullError before Badger is touched (a write
// into one of its memory-mapped files would be a SIGBUS, not an error),
// what was committed stays searchable, and writes go through again once
// there is room.
func TestDiskFullRefusesWrites(t *testing.T) {
	dir := t.TempDir()
	s := indextest.Open(t, dir+"/index")
	defer s.Close()
	indextest.SyncMap(t, s, dir+"/vault", indextest.SampleVault)
	before := s.Stats()

	var free atomic.Uint64
	free.Store(10 << 20) // under DefaultMinFree
	s.SetFree(func(string) (uint64, error) { return free.Load(), nil })

	files := indextest.WriteVault(t, dir+"/vault", map[string]string{"new.md": "# New\n\nThe okapi arrived.\n"})
	all := append(files, indextest.WriteVault(t, dir+"/vault", indextest.SampleVault)...)
	_, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v"}, all)
	var df *index.DiskFullError
	if !errors.As(err, &df) || !errors.Is(err, index.ErrDiskFull) {
		t.Fatalf("Sync on a full disk: %v, want a *DiskFullError", err)
	}
	if df.Free != 10<<20 || df.Need < index.DefaultMinFree || !strings.Contains(err.Error(), "disk full: 10 MB free on ") {
		t.Errorf("error %q (%+v)", err, df)
	}
	if got := s.Stats(); got.Docs != before.Docs {
		t.Errorf("documents %d after a refused write, want %d", got.Docs, before.Docs)
	}
	if got := indextest.Search(t, s, "tram alfama"); len(got) != 1 {
		t.Errorf("committed documents not searchable: %v", got)
	}
	if got := indextest.Search(t, s, "okapi"); len(got) != 0 {
		t.Errorf("refused document searchable: %v", got)
	}
	for name, write := range map[string]func() error{
		"run":   func() error { return s.PutRun(1, map[string]int{"x": 1}) },
		"cache": func() error { return s.PutCache(index.CacheExtraction, "sha", "pdf", []byte("x")) },
	} {
		if err := write(); !errors.Is(err, index.ErrDiskFull) {
			t.Errorf("%s write on a full disk: %v", name, err)
		}
	}
	if err := s.CheckSpace(0); !errors.Is(err, index.ErrDiskFull) {
		t.Errorf("CheckSpace = %v", err)
	}

	free.Store(1 << 40)
	res := indextest.Sync(t, s, "v", all)
	if res.Indexed != 1 || res.Unchanged != len(indextest.SampleVault) {
		t.Errorf("after room returned: %+v", res)
	}
	if got := indextest.Search(t, s, "okapi"); len(got) != 1 {
		t.Errorf("not indexed after room returned: %v", got)
	}
}
