package index

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
)

// vaultFilesFrom lists the Markdown files of a vault in ../shared, or
// skips when it is absent.
func vaultFilesFrom(b *testing.B, name string) []File {
	root := filepath.Join("../../shared/vaults", name)
	var files []File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, File{Rel: filepath.ToSlash(rel), Abs: p, Size: fi.Size(), ModTime: fi.ModTime()})
		return nil
	})
	if err != nil {
		b.Skipf("vault %s not available: %v", name, err)
	}
	return files
}

// BenchmarkSyncObsidianHub is a cold index of the 6,571-note obsidian-hub
// vault; it reports the Go heap in use after indexing.
func BenchmarkSyncObsidianHub(b *testing.B) {
	b.Run("graph", func(b *testing.B) { benchSyncHub(b, false) })
	b.Run("nograph", func(b *testing.B) { benchSyncHub(b, true) })
}

func benchSyncHub(b *testing.B, noGraph bool) {
	files := vaultFilesFrom(b, "obsidian-hub")
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := Open(Options{Dir: b.TempDir(), NoGraph: noGraph})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := s.Sync(context.Background(), SyncOptions{Vault: "hub", Complete: true}, files); err != nil {
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
