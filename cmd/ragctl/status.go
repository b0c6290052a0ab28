package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ragd/ragd/ipc"
)

// statusCmd is ragctl status.
type statusCmd struct{ json, watch bool }

func (c *statusCmd) flags(fs *FlagSet) {
	fs.BoolVar(&c.watch, "watch", false, "refresh until interrupted")
	fs.jsonFlag(&c.json)
}

// run prints the daemon's status once, as JSON, or live (-watch).
func (c *statusCmd) run(ctx context.Context, e *env, args []string) int {
	if len(args) > 0 {
		return e.usage("status", "no arguments expected")
	}
	if c.watch && c.json {
		return e.usage("status", "-watch and -json do not go together (`ragctl events -json` streams changes as JSON)")
	}
	cl := e.client()
	defer cl.Close()
	if c.watch {
		return watchStatus(ctx, e, cl)
	}
	st, err := cl.Status(ctx)
	if err != nil {
		return e.fail(err)
	}
	if c.json {
		writeJSON(e.stdout, st)
		return exitOK
	}
	printStatus(e.stdout, st, time.Now())
	return exitOK
}

// printStatus writes the human-readable status: the daemon line, its
// paths, the per-vault table and each vault's errors and skipped files.
func printStatus(w io.Writer, st *ipc.StatusResponse, now time.Time) {
	fmt.Fprintln(w, statusHeader(st, now))
	if st.DiskFull != "" {
		fmt.Fprintf(w, "INDEXING PAUSED: %s (queries are answered from what is indexed; indexing resumes when room returns)\n", st.DiskFull)
	}
	if st.Config != "" {
		fmt.Fprintf(w, "config:   %s\n", st.Config)
	}
	fmt.Fprintf(w, "socket:   %s\ndata dir: %s\nsemantic: %s\n", st.Socket, st.DataDir, st.Semantic)
	if g := st.Graph; g != nil {
		check := "consistent"
		if !g.Consistent {
			check = "INCONSISTENT: " + g.Problem
		}
		fmt.Fprintf(w, "graph:    %d notes, %d tags, %d links, %d unresolved (%s)\n", g.Notes, g.Tags, g.Relations, g.Unresolved, check)
	}
	if v := st.Vector; v != nil {
		floor := ""
		if v.Floor != 0 {
			floor = fmt.Sprintf(", similarity floor %.2f", v.Floor)
		}
		fmt.Fprintf(w, "vectors:  %d (%s index), %d chunks waiting%s\n", v.Vectors, v.Index, v.Pending, floor)
		if v.Note != "" {
			fmt.Fprintf(w, "          %s\n", v.Note)
		}
	}
	if line := pluginSummary(st.Plugins); line != "" {
		fmt.Fprintf(w, "plugins:  %s\n", line)
	}
	fmt.Fprintln(w)
	if len(st.Vaults) == 0 {
		fmt.Fprintln(w, "no vaults configured: add a [[vault]] table to ragd.toml")
		return
	}
	printVaultTable(w, st, now)
	for _, v := range st.Vaults {
		fmt.Fprintf(w, "\n%s: %s\n", v.Name, v.Path)
		if v.Offline != "" && !v.Online {
			fmt.Fprintf(w, "  offline: %s\n", v.Offline)
		} else if v.LastError != "" {
			fmt.Fprintf(w, "  error: %s\n", v.LastError)
		}
		if h := v.HeldDeletions; h != nil {
			fmt.Fprintf(w, "  held: %d of %d documents are no longer on disk; nothing is removed until the files return or "+
				"`ragctl reindex -confirm-deletions -vault %s` confirms it\n", h.Missing, h.Documents, v.Name)
		}
		for _, u := range v.Unreadable {
			fmt.Fprintf(w, "  unreadable folder %s/: %s (skipped; what is indexed from it is kept)\n", u.Path, u.Reason)
		}
		for _, f := range v.FailedFiles {
			fmt.Fprintf(w, "  skipped %s: %s\n", f.Path, f.Error)
		}
		for _, f := range v.SpecialFiles {
			fmt.Fprintf(w, "  not a file %s: %s\n", f.Path, f.Reason)
		}
		if v.Special > len(v.SpecialFiles) {
			fmt.Fprintf(w, "  … and %d more special files (ragctl status -json lists 200)\n", v.Special-len(v.SpecialFiles))
		}
		if v.Failed > len(v.FailedFiles) {
			fmt.Fprintf(w, "  … and %d more (ragctl status -json lists them)\n", v.Failed-len(v.FailedFiles))
		}
	}
}

// statusHeader is the first status line: version, pid, uptime and state.
func statusHeader(st *ipc.StatusResponse, now time.Time) string {
	state := st.State
	if p := st.Progress; p != nil && p.Total > 0 {
		state = fmt.Sprintf("%s (%d/%d files)", state, p.Done, p.Total)
	}
	if v := st.Vector; v != nil && v.Pending > 0 {
		state += fmt.Sprintf(", %d chunks waiting for vectors", v.Pending)
	}
	return fmt.Sprintf("ragd %s, protocol %d, pid %d, up %s: %s", st.Version, st.Protocol, st.PID,
		now.Sub(st.StartedAt).Round(time.Second), state)
}

// printVaultTable writes one row per vault: counts, watch mode, queued
// passes and the time of the last full scan.
func printVaultTable(w io.Writer, st *ipc.StatusResponse, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "VAULT\tDOCS\tCHUNKS\tFAILED\tWATCH\tQUEUED\tLAST SCAN\t")
	for _, v := range st.Vaults {
		last := "never"
		if v.LastReconcile != nil {
			last = now.Sub(*v.LastReconcile).Round(time.Second).String() + " ago"
		}
		if !v.Online {
			last = "OFFLINE"
		}
		watching := v.Watching
		if watching == "" {
			watching = "-" // a daemon that does not report it
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%d\t%s\t\n", v.Name, v.Documents, v.Chunks, v.Failed, watching, v.Queued, last)
	}
	tw.Flush()
}

// pluginSummary counts plugins by state and names the ones not running.
func pluginSummary(ps []ipc.PluginStatus) string {
	if len(ps) == 0 {
		return ""
	}
	running, idle := 0, 0
	var bad []string
	for _, p := range ps {
		switch p.State {
		case ipc.PluginRunning:
			running++
			continue
		case ipc.PluginIdle:
			idle++
			continue
		}
		s := fmt.Sprintf("%s %s", p.Name, p.State)
		if p.LastError != "" {
			s += ": " + p.LastError
		}
		bad = append(bad, s)
	}
	out := fmt.Sprintf("%d of %d running", running, len(ps))
	if idle > 0 {
		out += fmt.Sprintf(", %d idle until first needed", idle)
	}
	if len(bad) > 0 {
		out += "; " + strings.Join(bad, "; ") + " (ragctl plugins)"
	}
	return out
}
