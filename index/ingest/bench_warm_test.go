package ingest_test

import (
	"context"
	"testing"

	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
)

// BenchmarkWarmRestart measures what a restart does before the first answer
// when nothing changed: open the store, then a pass over the vault that
// finds every file unchanged. The vault is obsidian-hub, or the one named
// by RAGD_BENCH_VAULT (indexed into RAGD_BENCH_DATA when set, so a large
// one is indexed once).
func BenchmarkWarmRestart(b *testing.B) {
	s, files, data := indextest.BenchVault(b, "../../../shared/vaults/obsidian-hub")
	s.Close()
	b.ResetTimer()
	for range b.N {
		s := indextest.Open(b, data)
		res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v"}, files)
		if err != nil || res.Unchanged != len(files) {
			b.Fatalf("warm pass %+v, %v", res, err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}
