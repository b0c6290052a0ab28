package scale

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query/metrics"
)

// sample is what one run of one engine measured; the JSON keys are stable.
type sample struct {
	ColdS        float64 `json:"cold_index_s"`              // start to idle (ragd) or ready (peers)
	ColdCPUS     float64 `json:"cold_index_cpu_s"`          // user+system CPU of that
	PeakMB       float64 `json:"peak_rss_mb"`               // VmHWM at idle: the cold index's peak
	IdleMB       float64 `json:"idle_rss_mb"`               // VmRSS after settling
	IdleTreeMB   float64 `json:"idle_rss_with_children_mb"` // with child processes (ragd's plugins)
	DiskMB       float64 `json:"index_disk_mb"`
	RestartS     float64 `json:"restart_first_answer_s"` // warm start to the first query answered with results
	RestartIdleS float64 `json:"restart_idle_s"`
	QueryP50MS   float64 `json:"query_p50_ms"`
	QueryP95MS   float64 `json:"query_p95_ms"`
	SaveP50MS    float64 `json:"save_searchable_p50_ms"`
	StatusP50MS  float64 `json:"status_p50_ms,omitempty"` // status answers during the cold index (ragd)
	StatusMaxMS  float64 `json:"status_max_ms,omitempty"`
	StatusMaxAt  string  `json:"status_max_at,omitempty"`        // when the slowest answer came: seconds in, files done
	StatusCalls  int     `json:"status_calls,omitempty"`         // every call, answered or not
	StatusSlow   int     `json:"status_over_50ms,omitempty"`     // answers slower than 50 ms
	StatusFailed int     `json:"status_failed,omitempty"`        // calls that failed once the daemon had answered
	StatusEarly  int     `json:"status_not_listening,omitempty"` // calls that failed before its first answer: no socket yet
	Chunks       int     `json:"chunks,omitempty"`
	Failed       string  `json:"failed,omitempty"` // why the run stopped, when it did
}

// settings of a measurement.
type settings struct {
	vault   string
	queries []string
	settle  time.Duration // wait after idle before reading the idle RSS
	timeout time.Duration // give up a cold index after this
	saves   int           // save → searchable trials
}

// probeDir is the vault folder the save trials write into; it is removed
// after them (and before a run, in case a run was interrupted).
const probeDir = "ragd-bench-probe"

// warmVault reads every file of the vault once, so that each engine's cold
// index starts with the vault in the page cache. Left to the run order,
// the first engine to read a vault the kernel had evicted paid for the disk
// (ragd, which runs first: 13.8 s against 9.6–10.5 in the same invocation
// on the 10× vault), and which run that was depended on memory pressure.
// The cold index measures indexing, not the disk.
func warmVault(root string) error {
	buf := make([]byte, 1<<20)
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.CopyBuffer(io.Discard, f, buf)
		return err
	})
}

// measure runs one engine through the whole sequence in work (a fresh
// directory): cold index, settle, idle memory and disk, queries, stop, warm
// restart, save → searchable, stop.
func measure(ctx context.Context, e engine, work string, s settings) (smp sample, err error) {
	if err := os.RemoveAll(work); err != nil {
		return smp, err
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return smp, err
	}
	os.RemoveAll(filepath.Join(s.vault, probeDir))
	if err := warmVault(s.vault); err != nil {
		return smp, fmt.Errorf("read the vault before the cold index: %w", err)
	}

	// Cold index. A call that fails before the daemon's first answer found
	// no socket yet (the daemon opens its index before it listens): it is
	// counted apart from slow answers and failures later on, and only
	// answers give the latency figures.
	var status []float64
	var last *ipc.StatusResponse // the last status answered, for a run that times out
	var lastAt time.Time
	var slowest time.Duration
	start := time.Now()
	observe := func(took time.Duration, st *ipc.StatusResponse, err error) {
		smp.StatusCalls++
		if err == nil && took > slowest {
			slowest = took
			smp.StatusMaxAt = statusAt(time.Since(start)-took, st)
		}
		switch {
		case err != nil && last == nil:
			smp.StatusEarly++
			return
		case err != nil:
			smp.StatusFailed++
			return
		case took > 50*time.Millisecond:
			smp.StatusSlow++
		}
		status = append(status, float64(took.Microseconds())/1000)
		last, lastAt = st, time.Now()
	}
	start = time.Now()
	if err := e.start(work); err != nil {
		return smp, err
	}
	cctx, cancel := context.WithTimeout(ctx, s.timeout)
	err = e.ready(cctx, observe)
	cancel()
	smp.ColdS = time.Since(start).Seconds()
	if at := reconciledAt(last); err == nil && at.After(start) && time.Since(at) >= 0 {
		// ragd's own time for the end of the pass that made it idle, not
		// the poll that saw it: polls back off to -status-poll (250 ms),
		// which rounded the figure up by up to that much.
		smp.ColdS = at.Sub(start).Seconds()
	}
	smp.ColdCPUS = cpuSeconds(e.pid())
	smp.PeakMB = kbToMB(procKB(e.pid(), "VmHWM"))
	smp.StatusP50MS, smp.StatusMaxMS = metrics.Percentile(status, 50), metrics.Percentile(status, 100)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			smp.Failed = fmt.Sprintf("cold index stopped after %s", s.timeout)
			if last != nil {
				smp.Failed += fmt.Sprintf(": %s at the last status answered, %.0f s before", progress(last), time.Since(lastAt).Seconds())
			} else if p := e.progress(ctx); p != "" {
				smp.Failed += ": " + p
			}
			st := e.stop()
			smp.PeakMB = max(smp.PeakMB, kbToMB(maxRSSKB(st)))
			return smp, nil
		}
		e.stop()
		return smp, err
	}
	if r, ok := e.(*ragdEngine); ok {
		smp.Chunks = r.chunks(ctx)
	}

	// Settled.
	select {
	case <-time.After(s.settle):
	case <-ctx.Done():
		e.stop()
		return smp, ctx.Err()
	}
	own := procKB(e.pid(), "VmRSS")
	smp.IdleMB = kbToMB(own)
	smp.IdleTreeMB = kbToMB(own + childrenRSSKB(e.pid()))
	smp.DiskMB = float64(diskBytes(e.indexDir())) / 1e6

	// Queries: a few to warm up, then all of them timed.
	for _, q := range s.queries[:min(20, len(s.queries))] {
		if _, err := e.search(ctx, q); err != nil {
			e.stop()
			return smp, fmt.Errorf("query %q: %w", q, err)
		}
	}
	lat := make([]float64, 0, len(s.queries))
	for _, q := range s.queries {
		t0 := time.Now()
		if _, err := e.search(ctx, q); err != nil {
			e.stop()
			return smp, fmt.Errorf("query %q: %w", q, err)
		}
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
	}
	smp.QueryP50MS, smp.QueryP95MS = metrics.Percentile(lat, 50), metrics.Percentile(lat, 95)
	e.stop()

	// Warm restart: to the first answer with results, then to idle.
	start = time.Now()
	if err := e.start(work); err != nil {
		return smp, err
	}
	defer e.stop()
	if err := firstAnswer(ctx, e, s.queries, s.timeout); err != nil {
		return smp, fmt.Errorf("warm restart: %w", err)
	}
	smp.RestartS = time.Since(start).Seconds()
	cctx, cancel = context.WithTimeout(ctx, s.timeout)
	err = e.ready(cctx, nil)
	cancel()
	if err != nil {
		return smp, fmt.Errorf("warm restart: %w", err)
	}
	smp.RestartIdleS = time.Since(start).Seconds()

	// Save → searchable.
	defer os.RemoveAll(filepath.Join(s.vault, probeDir))
	var saves []float64
	for i := range s.saves {
		ms, err := saveToSearchable(ctx, e, s.vault, i)
		if err != nil {
			return smp, err
		}
		saves = append(saves, ms)
	}
	smp.SaveP50MS = metrics.Percentile(saves, 50)
	return smp, nil
}

// firstAnswer asks the first query that has answers (a peer answers as
// soon as it is ready; ragd as soon as its socket serves) until it gets
// results.
func firstAnswer(ctx context.Context, e engine, queries []string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	if p, ok := e.(*peerEngine); ok {
		if err := p.ready(ctx, nil); err != nil {
			return err
		}
	}
	for time.Now().Before(deadline) {
		for _, q := range queries[:min(5, len(queries))] {
			if n, err := e.search(ctx, q); err == nil && n > 0 {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	return fmt.Errorf("no answer within %s", timeout)
}

// saveToSearchable writes a note with a new word into the vault, tells the
// engine, and searches for the word until it is found; it returns the
// milliseconds from the write to the hit.
func saveToSearchable(ctx context.Context, e engine, vault string, i int) (float64, error) {
	word := fmt.Sprintf("zqxprobe%dx%d", i, time.Now().UnixNano()%1e9)
	rel := probeDir + "/probe.md"
	if err := os.MkdirAll(filepath.Join(vault, probeDir), 0o755); err != nil {
		return 0, err
	}
	start := time.Now()
	if err := os.WriteFile(filepath.Join(vault, filepath.FromSlash(rel)), []byte("# Probe\n\nThe marker is "+word+".\n"), 0o644); err != nil {
		return 0, err
	}
	if err := e.changed(rel); err != nil {
		return 0, err
	}
	for time.Since(start) < 30*time.Second {
		if n, err := e.search(ctx, word); err != nil {
			return 0, err
		} else if n > 0 {
			return float64(time.Since(start).Microseconds()) / 1000, nil
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
	return 0, fmt.Errorf("save trial %d: %q not searchable after 30 s", i, word)
}

// kbToMB converts kibibytes (as /proc counts) to megabytes (10^6 bytes).
// progress says how many notes and chunks a status counts.
func progress(st *ipc.StatusResponse) string {
	docs, chunks := 0, 0
	for _, v := range st.Vaults {
		docs += v.Documents
		chunks += v.Chunks
	}
	return formatCount(docs) + " notes, " + formatCount(chunks) + " chunks indexed"
}

func kbToMB(kb int64) float64 { return float64(kb) * 1024 / 1e6 }

// reconciledAt is when the last of st's vaults was last reconciled: the
// end of the pass after which ragd was idle. Zero without a status or
// while a vault has not been reconciled.
func reconciledAt(st *ipc.StatusResponse) time.Time {
	var at time.Time
	if st == nil {
		return at
	}
	for _, v := range st.Vaults {
		if v.LastReconcile == nil {
			return time.Time{}
		}
		if v.LastReconcile.After(at) {
			at = *v.LastReconcile
		}
	}
	return at
}

// statusAt says when a status call was made: seconds into the cold index,
// and the pass's progress as the answer gave it.
func statusAt(in time.Duration, st *ipc.StatusResponse) string {
	at := fmt.Sprintf("%.1f s in", in.Seconds())
	if p := st.Progress; p != nil && p.Total > 0 {
		at += fmt.Sprintf(", %d of %d files", p.Done, p.Total)
	} else if st.State != "" {
		at += ", " + st.State
	}
	return at
}
