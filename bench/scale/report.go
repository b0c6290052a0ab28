package scale

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// figure is one row of a scale's table.
type figure struct {
	label    string
	format   string
	get      func(*sample) float64
	set      func(*sample, float64)
	ragdOnly bool
	text     func(*sample) string // instead of format and get
}

var figures = []figure{
	{"cold index to idle, s", "%.2f", func(s *sample) float64 { return s.ColdS }, func(s *sample, v float64) { s.ColdS = v }, false, nil},
	{"  its CPU time, s", "%.2f", func(s *sample) float64 { return s.ColdCPUS }, func(s *sample, v float64) { s.ColdCPUS = v }, false, nil},
	{"peak RSS, MB", "%.0f", func(s *sample) float64 { return s.PeakMB }, func(s *sample, v float64) { s.PeakMB = v }, false, nil},
	{"idle RSS, MB", "%.0f", func(s *sample) float64 { return s.IdleMB }, func(s *sample, v float64) { s.IdleMB = v }, false, nil},
	{"  with child processes, MB", "%.0f", func(s *sample) float64 { return s.IdleTreeMB }, func(s *sample, v float64) { s.IdleTreeMB = v }, false, nil},
	{"index on disk, MB", "%.0f", func(s *sample) float64 { return s.DiskMB }, func(s *sample, v float64) { s.DiskMB = v }, false, nil},
	{"warm restart to first answer, s", "%.3f", func(s *sample) float64 { return s.RestartS }, func(s *sample, v float64) { s.RestartS = v }, false, nil},
	{"warm restart to idle, s", "%.2f", func(s *sample) float64 { return s.RestartIdleS }, func(s *sample, v float64) { s.RestartIdleS = v }, false, nil},
	{"query p50, ms", "%.2f", func(s *sample) float64 { return s.QueryP50MS }, func(s *sample, v float64) { s.QueryP50MS = v }, false, nil},
	{"query p95, ms", "%.2f", func(s *sample) float64 { return s.QueryP95MS }, func(s *sample, v float64) { s.QueryP95MS = v }, false, nil},
	{"save → searchable p50, ms", "%.0f", func(s *sample) float64 { return s.SaveP50MS }, func(s *sample, v float64) { s.SaveP50MS = v }, false, nil},
	{"status while indexing p50, ms", "%.2f", func(s *sample) float64 { return s.StatusP50MS }, func(s *sample, v float64) { s.StatusP50MS = v }, true, nil},
	{"status while indexing max, ms", "%.1f", func(s *sample) float64 { return s.StatusMaxMS }, func(s *sample, v float64) { s.StatusMaxMS = v }, true, nil},
	{label: "  answers over 50 ms / calls", ragdOnly: true, text: func(s *sample) string { return fmt.Sprintf("%d / %d", s.StatusSlow, s.StatusCalls) }},
	{label: "  failed: before listening / after", ragdOnly: true, text: func(s *sample) string { return fmt.Sprintf("%d / %d", s.StatusEarly, s.StatusFailed) }},
}

// printScale prints one scale's medians, each engine a column, then the
// ratios of ragd to each peer.
func printScale(w io.Writer, r *scaleResult) {
	runs := 0
	if len(r.Engines) > 0 {
		runs = len(r.Engines[0].Samples)
	}
	fmt.Fprintf(w, "\n== %s: %s notes, %.1f MB (%s)\n", r.label(), formatCount(r.Notes), r.VaultMB, r.Vault)
	for _, e := range r.Engines {
		if e.Median.Chunks > 0 {
			fmt.Fprintf(w, "   %s holds %s chunks\n", e.Engine, formatCount(e.Median.Chunks))
		}
	}
	fmt.Fprintf(w, "   medians of %d runs per engine, run alternately, the vault read once before each; %d queries (k = 10, with text: ragd through its socket, peers through a pipe)\n", runs, r.Queries)
	if len(r.Load) > 0 {
		fmt.Fprintf(w, "   load average (1 min) before the runs: %.1f–%.1f on %d CPUs\n", slices.Min(r.Load), slices.Max(r.Load), runtime.NumCPU())
	}
	fmt.Fprintln(w)
	ragd := -1
	for i, e := range r.Engines {
		if e.Engine == "ragd" {
			ragd = i
		}
	}
	fmt.Fprintf(w, "%-34s", "")
	for _, e := range r.Engines {
		fmt.Fprintf(w, " %12s", e.Engine)
	}
	if ragd >= 0 {
		for i, e := range r.Engines {
			if i != ragd {
				fmt.Fprintf(w, " %12s", "ragd/"+e.Engine)
			}
		}
	}
	fmt.Fprintln(w)
	for _, f := range figures {
		fmt.Fprintf(w, "%-34s", f.label)
		for _, e := range r.Engines {
			switch {
			case f.ragdOnly && e.Engine != "ragd":
				fmt.Fprintf(w, " %12s", "—")
			case e.Median.Failed != "" && !partial(f):
				fmt.Fprintf(w, " %12s", "stopped")
			case f.text != nil:
				fmt.Fprintf(w, " %12s", f.text(&e.Median))
			default:
				fmt.Fprintf(w, " %12s", fmt.Sprintf(f.format, f.get(&e.Median)))
			}
		}
		if ragd >= 0 && !f.ragdOnly {
			for i, e := range r.Engines {
				if i == ragd {
					continue
				}
				a, b := f.get(&r.Engines[ragd].Median), f.get(&e.Median)
				if b > 0 && r.Engines[ragd].Median.Failed == "" && e.Median.Failed == "" {
					fmt.Fprintf(w, " %12s", fmt.Sprintf("%.2f", a/b))
				} else {
					fmt.Fprintf(w, " %12s", "")
				}
			}
		}
		fmt.Fprintln(w)
	}
	for _, e := range r.Engines {
		if e.Median.Failed != "" {
			fmt.Fprintf(w, "%s: %s\n", e.Engine, e.Median.Failed)
		}
	}
}

// partial reports whether a failed run still measured f (a cold index
// stopped by the timeout still had a peak and answered status calls).
func partial(f figure) bool {
	return f.ragdOnly || strings.HasPrefix(f.label, "peak") || strings.HasPrefix(f.label, "cold")
}

// printGrowth prints, per engine, cost per note at every scale and how it
// changed from the smallest: time growing no worse than linearly keeps
// time per note flat (ratio ≤ 1); memory growing sub-linearly makes idle
// RSS per note fall (ratio < 1). CPU time per note is the figure load on
// a shared machine disturbs least.
func printGrowth(w io.Writer, rs []*scaleResult) {
	if len(rs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n== growth with the vault (per note; ratio = this scale's figure per note / the %gx figure per note)\n\n", rs[0].Scale)
	fmt.Fprintf(w, "%-8s %7s %9s %13s %8s %12s %8s %16s %8s %13s %8s\n", "engine", "scale", "notes", "cold ms/note", "ratio", "CPU ms/note", "ratio", "idle RSS KB/note", "ratio", "disk KB/note", "ratio")
	for ei, e := range rs[0].Engines {
		base := e.Median
		for _, r := range rs {
			if ei >= len(r.Engines) {
				continue
			}
			m := r.Engines[ei].Median
			n := float64(r.Notes)
			b := float64(rs[0].Notes)
			if m.Failed != "" {
				fmt.Fprintf(w, "%-8s %6gx %9s %13s\n", e.Engine, r.Scale, formatCount(r.Notes), "stopped")
				continue
			}
			fmt.Fprintf(w, "%-8s %6gx %9s %13.3f %8s %12.3f %8s %16.2f %8s %13.2f %8s\n", e.Engine, r.Scale, formatCount(r.Notes),
				1000*m.ColdS/n, ratio(m.ColdS/n, base.ColdS/b),
				1000*m.ColdCPUS/n, ratio(m.ColdCPUS/n, base.ColdCPUS/b),
				1e3*m.IdleMB/n, ratio(m.IdleMB/n, base.IdleMB/b),
				1e3*m.DiskMB/n, ratio(m.DiskMB/n, base.DiskMB/b))
		}
	}
}

func ratio(a, b float64) string {
	if b <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", a/b)
}

// formatCount writes n with thousands separators.
func formatCount(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
