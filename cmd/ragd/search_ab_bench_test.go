package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragd/ragd/bench/ragdproc"
	"github.com/ragd/ragd/bench/scale"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query/metrics"
)

// BenchmarkSearchAgainst times the default search through the socket
// against two daemons at once, asking each the same query in turn (each
// first in turn) so that both see the same load: this binary as ragd, and
// the ragd binary named by RAGD_BENCH_PEER (another commit's build; the
// benchmark skips without it). RAGD_BENCH_SELF puts a ragd binary in this
// one's place, so that two builds made alike are compared. The vault is RAGD_BENCH_VAULT, else
// ../shared/vaults/obsidian-hub; the queries are those ragd-bench scale
// draws from it. Each daemon's p50 and p95 are reported, and their ratio.
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
	ctx := context.Background()
	daemons := make([]*ragdproc.Daemon, 2)
	for i, bin := range []string{exe, peer} {
		dir := filepath.Join(b.TempDir(), names[i])
		if err := os.Mkdir(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		if err := ragdproc.WriteConfig(dir, vault, ""); err != nil {
			b.Fatal(err)
		}
		d, err := ragdproc.Start(bin, dir)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { d.Stop() })
		if err := d.WaitIdle(ctx, 250*time.Millisecond, nil); err != nil {
			b.Fatal(err)
		}
		daemons[i] = d
	}
	search := func(d *ragdproc.Daemon, q string) time.Duration {
		t0 := time.Now()
		if _, err := d.Client.Search(ctx, ipc.SearchRequest{Query: q, K: 10}); err != nil {
			b.Fatalf("search %q: %v", q, err)
		}
		return time.Since(t0)
	}
	for _, q := range queries { // warm up
		for _, d := range daemons {
			search(d, q)
		}
	}
	lat := make([][]float64, len(daemons))
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		for k := range daemons {
			j := (i + k) % len(daemons)
			lat[j] = append(lat[j], float64(search(daemons[j], q).Microseconds())/1000)
		}
		i++
	}
	for j, n := range names {
		b.ReportMetric(metrics.Percentile(lat[j], 50), n+"-p50-ms")
		b.ReportMetric(metrics.Percentile(lat[j], 95), n+"-p95-ms")
	}
	b.ReportMetric(metrics.Percentile(lat[0], 50)/metrics.Percentile(lat[1], 50), "p50-ratio")
}
