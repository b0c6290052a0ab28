package scale

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragd/ragd/bench/ragdproc"
	"github.com/ragd/ragd/query/metrics"
)

// restartSample is one warm restart of one binary.
type restartSample struct {
	listenS, firstS, idleS float64 // start to status answered, to first answer with results, to idle
	firstCPUS              float64 // the daemon's CPU time at the first answer
	load                   float64
	stopErr                string // how the process ended, when not cleanly
}

// RestartMain is `ragd-bench restart`: warm restarts of one or more ragd
// binaries, in turn, on an index a scale run kept (-keep): the time to the
// socket's first status, to the first query answered with results and to
// idle, with the CPU spent before the first answer. Binaries alternate run
// by run, so that a shared machine's load falls on each alike.
func RestartMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ragd-bench restart", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "", "a ragd directory a scale run kept (its ragd.toml and data), e.g. WORK/10x-ragd")
	vault := fs.String("vault", "", "the vault it indexes (its notes give the queries)")
	bins := fs.String("ragd", filepath.Join("bin", "ragd"), "ragd binaries to compare (comma-separated)")
	runs := fs.Int("runs", 3, "restarts of each binary")
	idle := fs.Bool("idle", true, "also wait for idle after the first answer")
	timeout := fs.Duration("timeout", 5*time.Minute, "give up a restart after this")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 || *dir == "" || *vault == "" || *runs < 1 {
		fmt.Fprintln(stderr, "usage: ragd-bench restart -dir DIR -vault VAULT [-ragd BIN,BIN] [-runs N]")
		return 2
	}
	qs, err := Queries(*vault, 5, 1)
	if err != nil {
		fmt.Fprintf(stderr, "ragd-bench restart: queries: %v\n", err)
		return 1
	}
	names := strings.Split(*bins, ",")
	samples := make([][]restartSample, len(names))
	for run := range *runs {
		for k := range names {
			i := (k + run) % len(names)
			s, err := restartOnce(ctx, names[i], *dir, qs, *idle, *timeout)
			if err != nil {
				fmt.Fprintf(stderr, "ragd-bench restart: %s: %v\n", names[i], err)
				return 1
			}
			fmt.Fprintf(stdout, "run %d %s: listening %.3f s, first answer %.3f s (CPU %.2f s), idle %.2f s, load %.1f %s\n",
				run+1, names[i], s.listenS, s.firstS, s.firstCPUS, s.idleS, s.load, s.stopErr)
			samples[i] = append(samples[i], s)
		}
	}
	for i, ss := range samples {
		col := func(f func(restartSample) float64) float64 {
			var v []float64
			for _, s := range ss {
				v = append(v, f(s))
			}
			return metrics.Percentile(v, 50)
		}
		fmt.Fprintf(stdout, "median %s: listening %.3f s, first answer %.3f s (CPU %.2f s), idle %.2f s, load %.1f\n", names[i],
			col(func(s restartSample) float64 { return s.listenS }), col(func(s restartSample) float64 { return s.firstS }),
			col(func(s restartSample) float64 { return s.firstCPUS }), col(func(s restartSample) float64 { return s.idleS }),
			col(func(s restartSample) float64 { return s.load }))
	}
	return 0
}

// restartOnce starts bin on dir, times it to its first status, its first
// answer with results and (if idle) to idle, and stops it.
func restartOnce(ctx context.Context, bin, dir string, qs []string, idle bool, timeout time.Duration) (restartSample, error) {
	s := restartSample{load: loadAverage()}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	d, err := ragdproc.Start(bin, dir)
	if err != nil {
		return s, err
	}
	defer d.Stop()
	e := &ragdEngine{d: d, dir: dir}
	for s.listenS == 0 {
		if _, err := d.Client.Status(ctx); err == nil {
			s.listenS = time.Since(start).Seconds()
			break
		}
		select {
		case <-ctx.Done():
			return s, ctx.Err()
		case <-d.Exited():
			return s, fmt.Errorf("ragd exited: %s", d.Tail())
		case <-time.After(2 * time.Millisecond):
		}
	}
	if err := firstAnswer(ctx, e, qs, timeout); err != nil {
		return s, err
	}
	s.firstS = time.Since(start).Seconds()
	s.firstCPUS = cpuSeconds(d.PID())
	if idle {
		if err := d.WaitIdle(ctx, 50*time.Millisecond, nil); err != nil {
			return s, err
		}
		s.idleS = time.Since(start).Seconds()
	}
	if st := d.Stop(); st != nil && !st.Success() {
		// Killed after Stop's 10 s (a slow shutdown on a loaded machine):
		// the restart was measured all the same.
		s.stopErr = st.String()
	}
	return s, nil
}
