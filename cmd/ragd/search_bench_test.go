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

// BenchmarkSearchRerankPlacement times the default search through the
// socket on obsidian-hub (../shared/vaults/obsidian-hub, skipped without
// it), with the queries ragd-bench scale draws from it, against three daemons
// at once: the heuristic reranker in ragd's process (the default), in a
// process of its own (subprocess = true) and no reranker. Every iteration
// asks one query of each, in turn, so that all three see the same load
// on a shared machine; each one's p50 and p95 are reported.
func BenchmarkSearchRerankPlacement(b *testing.B) {
	root := repoRoot(b)
	vault := filepath.Join(root, "..", "shared", "vaults", "obsidian-hub")
	if _, err := os.Stat(vault); err != nil {
		b.Skipf("no obsidian-hub vault: %v", err)
	}
	queries, err := scale.Queries(vault, 200, 1)
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("RAGD_TEST_MAIN", "1") // this binary serves as ragd and its plugins
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	setups := []daemonSetup{
		{"in-process", exe, ""},
		{"subprocess", exe, "\n[[plugin]]\nname = \"heuristic\"\nkind = \"reranker\"\nbuiltin = \"heuristic\"\nsubprocess = true\n"},
		{"no-rerank", exe, "\n[search]\nreranker = \"none\"\n"},
	}
	lat, _ := searchInTurn(b, vault, setups, queries)
	for j, s := range setups {
		b.ReportMetric(metrics.Percentile(lat[j], 50), s.name+"-p50-ms")
		b.ReportMetric(metrics.Percentile(lat[j], 95), s.name+"-p95-ms")
	}
}

// daemonSetup is one daemon of a benchmark: its name, binary and extra
// configuration.
type daemonSetup struct{ name, bin, extra string }

// searchInTurn starts a daemon per setup on vault, waits for each to be
// idle, and then, for every iteration of b, asks each the next query in
// turn (each first in turn, so that all see the same load); it returns each
// daemon's latencies in milliseconds and the CPU time its process spent
// per query, in milliseconds (from /proc: 0 where it cannot say).
func searchInTurn(b *testing.B, vault string, setups []daemonSetup, queries []string) (lat [][]float64, cpuMS []float64) {
	ctx := context.Background()
	daemons := make([]*ragdproc.Daemon, len(setups))
	for i, s := range setups {
		dir := filepath.Join(b.TempDir(), s.name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			b.Fatal(err)
		}
		if err := ragdproc.WriteConfig(dir, vault, s.extra); err != nil {
			b.Fatal(err)
		}
		d, err := ragdproc.Start(s.bin, dir)
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
	lat = make([][]float64, len(daemons))
	cpu0 := make([]float64, len(daemons))
	for j, d := range daemons {
		cpu0[j] = scale.CPUSeconds(d.PID())
	}
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		for k := range daemons {
			j := (i + k) % len(daemons) // each goes first in turn
			lat[j] = append(lat[j], float64(search(daemons[j], q).Microseconds())/1000)
		}
		i++
	}
	cpuMS = make([]float64, len(daemons))
	for j, d := range daemons {
		cpuMS[j] = (scale.CPUSeconds(d.PID()) - cpu0[j]) * 1000 / float64(max(i, 1))
	}
	return lat, cpuMS
}
