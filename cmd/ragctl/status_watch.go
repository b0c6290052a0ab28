package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ragd/ragd/ipc"
)

// ANSI escape sequences of the terminal views.
const (
	ansiHome       = "\x1b[H"  // cursor to the top left corner
	ansiClear      = "\x1b[2J" // erase the screen
	ansiEraseLine  = "\x1b[K"  // erase to the end of the line
	ansiEraseBelow = "\x1b[J"  // erase to the end of the screen
)

// statusView shows successive daemon states: the poll result st, or err
// when the poll failed.
type statusView interface {
	show(st *ipc.StatusResponse, err error, now time.Time)
}

// watchStatus polls the daemon every pollInterval until ctx ends (SIGINT),
// redrawing in place on a terminal and printing plain lines otherwise. Only
// a first poll that fails is an error; later failures (a daemon restart)
// are shown and polling goes on.
func watchStatus(ctx context.Context, e *env, c *ipc.Client) int {
	st, err := c.Status(ctx)
	if err != nil {
		return e.fail(err)
	}
	var v statusView = &plainView{w: e.stdout, every: time.Second}
	if e.isTTY {
		v = &ttyView{w: e.stdout}
	}
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		v.show(st, err, time.Now())
		select {
		case <-ctx.Done():
			return exitOK
		case <-tick.C:
		}
		st, err = c.Status(ctx)
		if ctx.Err() != nil {
			return exitOK
		}
	}
}

// ttyView redraws a full-screen frame whenever it changes.
type ttyView struct {
	w       io.Writer
	last    string
	started bool
}

func (t *ttyView) show(st *ipc.StatusResponse, err error, now time.Time) {
	var b strings.Builder
	if err != nil {
		fmt.Fprintf(&b, "ragctl: %v\nretrying…\n", err)
	} else {
		watchFrame(&b, st, now)
	}
	frame := b.String()
	if frame == t.last {
		return
	}
	t.last = frame
	prefix := ansiHome
	if !t.started {
		prefix, t.started = ansiHome+ansiClear, true
	}
	// Overwrite each line in place and erase what is left of the previous
	// frame, which does not flicker the way clearing the screen does.
	io.WriteString(t.w, prefix+strings.ReplaceAll(frame, "\n", ansiEraseLine+"\n")+ansiEraseBelow)
}

// watchFrame writes the terminal view of st: the daemon line, the running
// pass with its progress bar, and the per-vault table.
func watchFrame(w io.Writer, st *ipc.StatusResponse, now time.Time) {
	fmt.Fprintln(w, statusHeader(st, now))
	if p := st.Progress; p != nil {
		fmt.Fprintf(w, "indexing %s\n%s\n", progressLabel(p), progressBar(barWidth, p))
	} else if q := queuedPasses(st); q > 0 {
		fmt.Fprintf(w, "indexing: %s queued\n", passes(q))
	}
	if line := embeddingLine(st); line != "" {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	if len(st.Vaults) == 0 {
		fmt.Fprintln(w, "no vaults configured: add a [[vault]] table to ragd.toml")
	} else {
		printVaultTable(w, st, now)
	}
	fmt.Fprintln(w, "\nrefreshing every", pollInterval, "· Ctrl-C to stop")
}

// plainView prints one line per change of state, at most once per every,
// for logs and pipes: no escape sequences.
type plainView struct {
	w       io.Writer
	every   time.Duration
	last    string
	at      time.Time
	printed bool
}

func (p *plainView) show(st *ipc.StatusResponse, err error, now time.Time) {
	var line string
	if err != nil {
		line = "error: " + err.Error()
	} else {
		line = plainStatusLine(st)
	}
	if p.due(line, now) {
		fmt.Fprintln(p.w, line)
	}
}

// due reports whether line should be printed at now: it differs from the
// last line printed and that was at least p.every ago. A change held back
// by the rate limit is printed by a later poll if it still holds.
func (p *plainView) due(line string, now time.Time) bool {
	if p.printed && (line == p.last || now.Sub(p.at) < p.every) {
		return false
	}
	p.last, p.at, p.printed = line, now, true
	return true
}

// plainStatusLine sums st up in one line:
//
//	indexing notes: 1200/6571 files (412/s, ETA 13s)
//	idle: notes 6571 docs, 0 failed
func plainStatusLine(st *ipc.StatusResponse) string {
	q := queuedPasses(st)
	if p := st.Progress; p != nil {
		vault := p.Vault
		if vault == "" {
			vault = "all vaults"
		}
		line := fmt.Sprintf("indexing %s: %s files", vault, progressCount(p))
		if r := formatRate(p.Rate); r != "" {
			if eta := formatETA(p); eta != "" {
				r += ", ETA " + eta
			}
			line += " (" + r + ")"
		}
		if q > 0 {
			line += "; " + passes(q) + " queued"
		}
		return line
	}
	if st.State == ipc.StateIndexing {
		if q > 0 {
			return "indexing: " + passes(q) + " queued"
		}
		return "indexing"
	}
	if line := embeddingLine(st); line != "" {
		return line
	}
	if len(st.Vaults) == 0 {
		return st.State + ": no vaults configured"
	}
	parts := make([]string, 0, len(st.Vaults))
	for _, v := range st.Vaults {
		s := fmt.Sprintf("%s %d docs, %d failed", v.Name, v.Documents, v.Failed)
		if !v.Online {
			s += " (offline)"
		}
		parts = append(parts, s)
	}
	return st.State + ": " + strings.Join(parts, "; ")
}

// embeddingLine reports the embedding backlog: chunks indexed (found by
// keywords) that wait for their vectors, and why embedding is paused if it
// is; "" when there is none.
func embeddingLine(st *ipc.StatusResponse) string {
	v := st.Vector
	if v == nil || v.Pending == 0 {
		return ""
	}
	line := fmt.Sprintf("embedding: %d chunks waiting for vectors", v.Pending)
	if v.LastError != "" {
		line += " (paused: " + v.LastError + ")"
	}
	return line
}

// queuedPasses is the number of passes waiting, over all vaults.
func queuedPasses(st *ipc.StatusResponse) int {
	n := 0
	for _, v := range st.Vaults {
		n += v.Queued
	}
	return n
}

// passes is "1 pass" or "n passes".
func passes(n int) string {
	if n == 1 {
		return "1 pass"
	}
	return fmt.Sprintf("%d passes", n)
}
