package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ragd/ragd/bench/ragdproc"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query/metrics"
)

// benchReport is what `ragctl bench` prints; the JSON keys are stable.
type benchReport struct {
	Files            int     `json:"files"`
	Bytes            int64   `json:"bytes"`
	ColdStartSeconds float64 `json:"cold_start_seconds"`
	ColdPeakRSSMB    float64 `json:"cold_peak_rss_mb"`
	WarmStartSeconds float64 `json:"warm_start_seconds"`
	Trials           int     `json:"trials"`
	SaveP50MS        float64 `json:"save_to_searchable_p50_ms"`
	SaveP95MS        float64 `json:"save_to_searchable_p95_ms"`
	IdleSeconds      float64 `json:"idle_seconds"`
	IdleCPUPercent   float64 `json:"idle_cpu_percent"`
}

func (r *benchReport) print(w io.Writer, dir string) {
	fmt.Fprintf(w, "vault                     %s (%d files, %.1f MB)\n", dir, r.Files, float64(r.Bytes)/(1<<20))
	fmt.Fprintf(w, "cold start to idle        %.2f s, peak RSS %.0f MB\n", r.ColdStartSeconds, r.ColdPeakRSSMB)
	fmt.Fprintf(w, "warm restart to idle      %.2f s\n", r.WarmStartSeconds)
	fmt.Fprintf(w, "save → searchable         p50 %.0f ms, p95 %.0f ms (%d trials)\n", r.SaveP50MS, r.SaveP95MS, r.Trials)
	if r.IdleSeconds > 0 {
		fmt.Fprintf(w, "idle CPU while watching   %.2f %% over %.0f s\n", r.IdleCPUPercent, r.IdleSeconds)
	}
}

// benchCmd is ragctl bench: it measures the daemon on a copy of a vault:
// cold start (wall and peak RSS), save → searchable latency through the
// watcher, warm restart and idle CPU. The vault itself is never written to.
type benchCmd struct {
	vault, ragdBin string
	trials         int
	idle           time.Duration
	asJSON, keep   bool
}

func (c *benchCmd) flags(fs *FlagSet) {
	fs.path(&c.vault, "vault", true, "vault `directory` to copy and measure on")
	fs.intRange(&c.trials, "trials", 20, 1, 100000, "`N` save → searchable trials")
	fs.DurationVar(&c.idle, "idle", 60*time.Second, "how long to measure idle CPU (0 skips)")
	fs.path(&c.ragdBin, "ragd", false, "ragd `binary` to start (default: next to ragctl, then $PATH)")
	fs.BoolVar(&c.asJSON, "json", false, "print JSON")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory (copy, data, ragd.log) and print its path")
}

func (c *benchCmd) run(ctx context.Context, e *env, args []string) int {
	vault, trials, idle, ragdBin, asJSON, keep := &c.vault, &c.trials, &c.idle, &c.ragdBin, &c.asJSON, &c.keep
	if len(args) > 0 || *vault == "" {
		return e.usage("bench", "-vault DIR is needed")
	}
	bin, tmp, cleanup, err := prepareRun(e, "bench", *ragdBin, *keep)
	if err != nil {
		return e.fail(err)
	}
	defer cleanup()
	rep, err := bench(ctx, bin, tmp, *vault, *trials, *idle)
	if err != nil {
		return e.fail(err)
	}
	if *asJSON {
		writeJSON(e.stdout, rep)
	} else {
		rep.print(e.stdout, *vault)
	}
	return exitOK
}

func bench(ctx context.Context, bin, tmp, src string, trials int, idle time.Duration) (*benchReport, error) {
	rep := &benchReport{Trials: trials}
	copyDir := filepath.Join(tmp, "vault")
	var err error
	if rep.Files, rep.Bytes, err = ragdproc.CopyTree(src, copyDir); err != nil {
		return nil, fmt.Errorf("copy vault: %w", err)
	}

	start := time.Now()
	t, err := startThrowaway(bin, tmp, copyDir, "")
	if err != nil {
		return nil, err
	}
	if err := t.waitIdle(ctx); err != nil {
		t.stop()
		return nil, err
	}
	rep.ColdStartSeconds = time.Since(start).Seconds()
	rep.ColdPeakRSSMB = float64(procStatusKB(t.PID(), "VmHWM")) / 1024

	var lat []float64
	for i := range trials {
		ms, err := saveToSearchable(ctx, t, copyDir, i)
		if err != nil {
			t.stop()
			return nil, err
		}
		lat = append(lat, ms)
	}
	rep.SaveP50MS, rep.SaveP95MS = metrics.Percentile(lat, 50), metrics.Percentile(lat, 95)

	if idle > 0 {
		before := procCPUTicks(t.PID())
		select {
		case <-time.After(idle):
		case <-ctx.Done():
			t.stop()
			return nil, ctx.Err()
		}
		used := float64(procCPUTicks(t.PID())-before) / clockTicks
		rep.IdleSeconds = idle.Seconds()
		rep.IdleCPUPercent = 100 * used / idle.Seconds()
	}
	t.stop()

	start = time.Now()
	t, err = launch(bin, tmp)
	if err != nil {
		return nil, err
	}
	defer t.stop()
	if err := t.waitIdle(ctx); err != nil {
		return nil, err
	}
	rep.WarmStartSeconds = time.Since(start).Seconds()
	return rep, nil
}

// saveToSearchable writes a note with a unique word and polls search until
// it is found; it returns the milliseconds from the write to the hit.
func saveToSearchable(ctx context.Context, t *throwaway, dir string, i int) (float64, error) {
	word := fmt.Sprintf("zqxbench%dword%d", i, time.Now().UnixNano()%1e6)
	p := filepath.Join(dir, fmt.Sprintf("ragd-bench-%03d.md", i))
	start := time.Now()
	if err := os.WriteFile(p, []byte("# Bench note\n\nThe marker is "+word+".\n"), 0o644); err != nil {
		return 0, err
	}
	deadline := start.Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := t.Client.Search(ctx, ipc.SearchRequest{Query: word, K: 1, NoText: true})
		if err != nil {
			return 0, err
		}
		if len(resp.Results) > 0 {
			return float64(time.Since(start).Microseconds()) / 1000, nil
		}
		time.Sleep(2 * time.Millisecond)
	}
	return 0, fmt.Errorf("trial %d: %q not searchable after 30 s", i, word)
}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat times on Linux.
const clockTicks = 100

// procCPUTicks returns utime+stime of a process from /proc (0 elsewhere).
func procCPUTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name, which is in parentheses.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+2:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0
	}
	return ut + st
}

// procStatusKB returns a kB field of /proc/<pid>/status (0 if unknown).
func procStatusKB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
