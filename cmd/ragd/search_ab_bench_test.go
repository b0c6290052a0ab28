package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ragd/ragd/bench/scale"
	"github.com/ragd/ragd/query/metrics"
)

// BenchmarkSearchAgainst times the default search through the socket
// against two daemons at once, asking each the same query in turn (each
// first in turn) so that both see the same load: this binary as ragd, and
// the ragd binary named by RAGD_BENCH_PEER (another commit's build; the
// benchmark skips without it). RAGD_BENCH_SELF puts a ragd binary in this
// one's place, so that two builds made alike are compared. The vault is RAGD_BENCH_VAULT, else
// ../shared/vaults/obsidian-hub; the queries are those ragd-bench scale
// draws from it. Each daemon's p50 and p95 are reported, and their ratio,
// and the CPU time the daemon's process spent per query.
//
//	RAGD_BENCH_PEER=/tmp/ragd-old go test ./cmd/ragd -run '^$' -bench SearchAgainst -benchtime 2000x -count 5
func BenchmarkSearchAgainst(b *testing.B) {
	peer := os.Getenv("RAGD_BENCH_PEER")
	if peer == "" {
		b.Skip("RAGD_BENCH_PEER names no ragd binary to compare with")
	}
	vault := os.Getenv("RAGD_BENCH_VAULT")
	if vault == "" {
		vault = filepath.Join(repoRoot(b), "..", "shared", "vaults", "obsidian-hub")
	}
	if _, err := os.Stat(vault); err != nil {
		b.Skipf("no vault: %v", err)
	}
	queries, err := scale.Queries(vault, 200, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("RAGD_TEST_MAIN", "1") // this binary serves as ragd
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	if self := os.Getenv("RAGD_BENCH_SELF"); self != "" {
		exe = self
	}
	names := []string{"this", "peer"}
	lat, cpu := searchInTurn(b, vault, []daemonSetup{{names[0], exe, ""}, {names[1], peer, ""}}, queries)
	for j, n := range names {
		b.ReportMetric(metrics.Percentile(lat[j], 50), n+"-p50-ms")
		b.ReportMetric(metrics.Percentile(lat[j], 95), n+"-p95-ms")
		b.ReportMetric(cpu[j], n+"-cpu-ms/q")
	}
	b.ReportMetric(metrics.Percentile(lat[0], 50)/metrics.Percentile(lat[1], 50), "p50-ratio")
}
