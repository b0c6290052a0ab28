package index_test

import (
	"cmp"
	"os"
	"path"
	"strings"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/index/indextest"
)

// BenchmarkPrepareObsidianHub is what the workers of a cold index do per
// note of obsidian-hub (../shared/vaults/obsidian-hub, or RAGD_BENCH_VAULT;
// skipped without it), without the store: chunk, analyse, build the note's
// records and encode them. One iteration prepares every note once.
func BenchmarkPrepareObsidianHub(b *testing.B) {
	files := indextest.SharedVault(b, cmp.Or(os.Getenv("RAGD_BENCH_VAULT"), "../../shared/vaults/obsidian-hub"))
	srcs := make([][]byte, len(files))
	var n int64
	for i, f := range files {
		src, err := os.ReadFile(f.Abs)
		if err != nil {
			b.Fatal(err)
		}
		srcs[i] = src
		n += int64(len(src))
	}
	an := analyze.New()
	b.SetBytes(n)
	b.ReportAllocs()
	for b.Loop() {
		for i, src := range srcs {
			cd, err := chunk.Markdown(src, chunk.Options{})
			if err != nil {
				continue
			}
			rel := files[i].Rel
			p := index.Prepare(an, index.Document{Vault: "hub", Path: rel, Kind: "markdown"}, cd,
				strings.TrimSuffix(path.Base(rel), path.Ext(rel)))
			p.Encode()
		}
	}
}
