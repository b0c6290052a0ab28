package ingest_test

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
)

// BenchmarkSyncObsidianHub is a cold index of the 6,571-note obsidian-hub
// vault (../shared/vaults/obsidian-hub; skipped without it); it reports the
// Go heap in use after indexing. Set RAGD_HEAP_PROFILE to a file name to
// write a heap profile there.
func BenchmarkSyncObsidianHub(b *testing.B) {
	b.Run("graph", func(b *testing.B) { benchSyncHub(b, false) })
	b.Run("nograph", func(b *testing.B) { benchSyncHub(b, true) })
}

func benchSyncHub(b *testing.B, noGraph bool) {
	files := indextest.SharedVault(b, "../../../shared/vaults/obsidian-hub")
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s := indextest.Open(b, b.TempDir())
		b.StartTimer()
		in := ingest.New(s, ingest.Options{NoGraph: noGraph})
		if _, err := in.Sync(context.Background(), ingest.SyncOptions{Vault: "hub"}, files); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MB")
		if p := os.Getenv("RAGD_HEAP_PROFILE"); p != "" {
			f, _ := os.Create(p)
			pprof.WriteHeapProfile(f)
			f.Close()
		}
		s.Close()
		b.StartTimer()
	}
}

// BenchmarkSyncSciFact measures a cold index of SciFact (5,183 notes; from
// ../shared/eval, skipped without it): read, hash, chunk, analyse and
// commit to a fresh store.
func BenchmarkSyncSciFact(b *testing.B) {
	files := indextest.BEIRVault(b, "../../../shared/eval", "scifact")
	var bytes int64
	for _, f := range files {
		bytes += f.Size
	}
	b.SetBytes(bytes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := index.Open(index.Options{Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v"}, files); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}
