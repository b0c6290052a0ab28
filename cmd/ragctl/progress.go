package main

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/ragd/ragd/ipc"
)

// pollInterval is how often live views (status -watch, reindex -wait on a
// terminal) ask the daemon for its status.
const pollInterval = 250 * time.Millisecond

// barWidth is the number of cells of the status -watch progress bar;
// lineBarWidth that of the one-line bar of reindex -wait, which shares its
// line with a vault name and must fit 80 columns.
const (
	barWidth     = 30
	lineBarWidth = 20
)

// progressBar renders an indexing pass as a bar of width cells followed by
// its counts, rate and estimated time left:
//
//	[#######.........]  1234/6571 files  412/s  ETA 13s
//
// An unknown total (0: the files are still being listed) leaves the bar
// empty and shows "?" for the total; an unknown rate omits rate and ETA.
func progressBar(width int, p *ipc.Progress) string {
	width = max(width, 0)
	var done, total int64
	if p != nil {
		done, total = max(p.Done, 0), max(p.Total, 0)
	}
	filled := 0
	if total > 0 {
		filled = int(int64(width) * min(done, total) / total)
	}
	var b strings.Builder
	b.WriteByte('[')
	b.WriteString(strings.Repeat("#", filled))
	b.WriteString(strings.Repeat(".", width-filled))
	b.WriteByte(']')
	if p == nil {
		return b.String()
	}
	fmt.Fprintf(&b, "  %s files", progressCount(p))
	if r := formatRate(p.Rate); r != "" {
		fmt.Fprintf(&b, "  %s", r)
		if eta := formatETA(p); eta != "" {
			fmt.Fprintf(&b, "  ETA %s", eta)
		}
	}
	return b.String()
}

// progressCount is "done/total", with "?" for an unknown total.
func progressCount(p *ipc.Progress) string {
	if p.Total <= 0 {
		return fmt.Sprintf("%d/?", p.Done)
	}
	return fmt.Sprintf("%d/%d", p.Done, p.Total)
}

// progressLabel names what a pass covers and why it runs: "notes (watch)".
func progressLabel(p *ipc.Progress) string {
	label := p.Vault
	if label == "" {
		label = "all vaults"
	}
	if p.Trigger != "" {
		label += " (" + p.Trigger + ")"
	}
	return label
}

// formatRate renders files per second ("412/s", "2.5/s", "<0.1/s"), or "" when the
// rate is not known yet.
func formatRate(rate float64) string {
	switch {
	case !(rate > 0) || math.IsInf(rate, 0):
		return ""
	case rate < 0.05:
		return "<0.1/s"
	case rate < 10:
		return fmt.Sprintf("%.1f/s", rate)
	default:
		return fmt.Sprintf("%.0f/s", rate)
	}
}

// formatETA renders the estimated time left ("13s", "2m5s", "<1s"), or ""
// when it is unknown, the pass has no known total or it is complete.
func formatETA(p *ipc.Progress) string {
	secs := p.ETASeconds
	if p.Total <= 0 || p.Done >= p.Total || p.Rate <= 0 || math.IsNaN(secs) || secs < 0 || secs > 100*3600 {
		return ""
	}
	d := time.Duration(secs * float64(time.Second)).Round(time.Second)
	if d < time.Second {
		return "<1s"
	}
	return d.String()
}

// shortDuration rounds d for display: milliseconds under a second, tenths
// of a second under a minute, whole seconds above.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(time.Second).String()
	}
}
