package index_test

import (
	"testing"

	"github.com/ragd/ragd/index/indextest"
)

// BenchmarkStatus measures what a status request asks of the index — the
// per-vault counts, the graph's sizes, the vector backlog and the failed
// files listed — on the obsidian-hub vault, or on the vault named by
// RAGD_BENCH_VAULT (indexed into RAGD_BENCH_DATA when set, so a large one
// is indexed once).
func BenchmarkStatus(b *testing.B) {
	s, _, _ := indextest.BenchVault(b, "../../shared/vaults/obsidian-hub")
	defer s.Close()
	b.ResetTimer()
	for range b.N {
		counts, _ := s.Counts()
		gs := s.GraphStats()
		vs := s.VectorStats()
		if _, err := s.FailedDocuments("v", 20); err != nil {
			b.Fatal(err)
		}
		if counts["v"].Documents == 0 || gs.Notes == 0 || vs.Pending < 0 {
			b.Fatalf("counts %+v, graph %+v", counts, gs)
		}
	}
}
