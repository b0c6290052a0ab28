package main

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ragd/ragd/bench/ragdproc"
	"github.com/ragd/ragd/bench/scale"
	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query/metrics"
)

// BenchmarkSearchSocket times the default search as a client sees it: a
// daemon in this process (real store on Badger and segments, the default
// plugins with ragd's built-ins, its HTTP server) indexes obsidian-hub (or RAGD_BENCH_VAULT;
// skipped without it) in a temporary directory, then every iteration asks
// it one of the queries ragd-bench scale draws from the vault through
// ipc.Client on the Unix socket, as the scale benchmark does (k = 10, no
// other option). Client and daemon share this process, so a CPU profile
// (-cpuprofile) shows the whole request path; p50 and p95 are reported,
// and the CPU time of the process per query.
//
//	go test ./cmd/ragd -run '^$' -bench SearchSocket -benchtime 2000x -count 5
func BenchmarkSearchSocket(b *testing.B) {
	vault := cmp.Or(os.Getenv("RAGD_BENCH_VAULT"), filepath.Join(repoRoot(b), "..", "shared", "vaults", "obsidian-hub"))
	if _, err := os.Stat(vault); err != nil {
		b.Skipf("no vault (../shared/vaults/obsidian-hub or RAGD_BENCH_VAULT): %v", err)
	}
	abs, err := filepath.Abs(vault)
	if err != nil {
		b.Fatal(err)
	}
	queries, err := scale.Queries(abs, 200, 1)
	if err != nil {
		b.Fatal(err)
	}
	// A short directory: socket paths are limited to about 104 bytes.
	dir, err := os.MkdirTemp("", "ragd-b")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(dir) })
	// The scale benchmark's configuration: the vault, default pipeline.
	if err := ragdproc.WriteConfig(dir, abs, ""); err != nil {
		b.Fatal(err)
	}
	cfg, err := config.Load(filepath.Join(dir, "ragd.toml"))
	if err != nil {
		b.Fatal(err)
	}
	d, err := daemon.New(cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- d.Run(ctx) }()
	b.Cleanup(func() {
		cancel()
		if err := <-ran; err != nil {
			b.Errorf("Run: %v", err)
		}
	})
	c := ipc.NewClient(cfg.Daemon.Socket)
	b.Cleanup(c.Close)
	for {
		st, err := c.Status(ctx)
		if err == nil && st.State == ipc.StateIdle && len(st.Vaults) == 1 && st.Vaults[0].LastReconcile != nil {
			break
		}
		select {
		case err := <-ran:
			b.Fatalf("Run returned before the vault was indexed: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	search := func(q string) {
		if _, err := c.Search(ctx, ipc.SearchRequest{Query: q, K: 10}); err != nil {
			b.Fatalf("search %q: %v", q, err)
		}
	}
	for _, q := range queries { // warm up
		search(q)
	}
	lat := make([]float64, 0, b.N)
	i := 0
	cpu := processCPU(b)
	for b.Loop() {
		t0 := time.Now()
		search(queries[i%len(queries)])
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
		i++
	}
	b.ReportMetric(float64(processCPU(b)-cpu)/float64(i), "cpu-ns/op")
	b.ReportMetric(metrics.Percentile(lat, 50), "p50-ms")
	b.ReportMetric(metrics.Percentile(lat, 95), "p95-ms")
}

// processCPU is the user and system CPU time this process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
