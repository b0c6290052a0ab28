package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ragd/ragd/ipc"
)

// contextCmd is ragctl context.
type contextCmd struct {
	k, budget         int
	vault, path, mode string
	summary, json     bool
}

func (c *contextCmd) flags(fs *FlagSet) {
	fs.intRange(&c.k, "k", 8, 1, ipc.MaxK, "chunks to retrieve, `N` from 1 to 1000")
	fs.vault(&c.vault, true, "search only this `VAULT` (comma-separated for several)")
	fs.StringVar(&c.path, "path", "", "search only files under this vault-relative `PATH`")
	fs.intRange(&c.budget, "budget", ipc.DefaultContextBudget, 1, ipc.MaxContextBudget, "most `characters` of quoted text")
	fs.BoolVar(&c.summary, "summary", false, "paths and preview lines instead of full snippets")
	fs.mode(&c.mode)
	fs.jsonFlag(&c.json)
}

func (c *contextCmd) run(ctx context.Context, e *env, args []string) int {
	q := strings.TrimSpace(strings.Join(args, " "))
	if q == "" {
		return e.usage("context", "no query given")
	}
	req := ipc.ContextRequest{Query: q, K: c.k, PathPrefix: c.path, Budget: c.budget, Mode: c.mode, Vaults: vaults(c.vault)}
	if c.summary {
		req.Style = "summary"
	}
	cl := e.client()
	defer cl.Close()
	resp, err := cl.Context(ctx, req)
	if err != nil {
		return e.fail(err)
	}
	if c.json {
		writeJSON(e.stdout, resp)
	} else {
		printContext(e.stdout, resp)
	}
	if !resp.Grounded {
		return exitFail
	}
	return exitOK
}

func printContext(w io.Writer, resp *ipc.ContextResponse) {
	if !resp.Grounded {
		fmt.Fprintf(w, "nothing in the vaults answers %q\n", resp.Query)
		for _, s := range resp.Suggestions {
			fmt.Fprintf(w, "  - %s\n", s)
		}
		return
	}
	fmt.Fprint(w, resp.Context)
	if !strings.HasSuffix(resp.Context, "\n") {
		fmt.Fprintln(w)
	}
}

// similarCmd is ragctl similar.
type similarCmd struct {
	k     int
	vault string
	json  bool
}

func (c *similarCmd) flags(fs *FlagSet) {
	fs.intRange(&c.k, "k", ipc.DefaultK, 1, ipc.MaxK, "notes to list, `N` from 1 to 1000")
	fs.vault(&c.vault, false, "the `VAULT` holding the note (when several do)")
	fs.jsonFlag(&c.json)
}

func (c *similarCmd) completeArg(arg int, _ []string) completion {
	if arg == 0 {
		return completion{source: sourceNotes}
	}
	return completion{}
}

func (c *similarCmd) run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		return e.usage("similar", "no note given")
	}
	// A title with spaces may come unquoted: "ragctl similar Espresso Dialing In".
	p := strings.Join(args, " ")
	if abs, err := absIfExists(p); err == nil {
		p = abs
	}
	cl := e.client()
	defer cl.Close()
	resp, err := cl.Similar(ctx, ipc.SimilarRequest{Vault: c.vault, Path: p, K: c.k})
	if err != nil {
		return e.fail(err)
	}
	if c.json {
		writeJSON(e.stdout, resp)
	} else {
		printSimilar(e.stdout, resp)
	}
	if len(resp.Notes) == 0 {
		return exitFail
	}
	return exitOK
}

func printSimilar(w io.Writer, resp *ipc.SimilarResponse) {
	if len(resp.Notes) == 0 {
		fmt.Fprintf(w, "no notes related to %s\n", resp.Path)
		return
	}
	if len(resp.Degraded) > 0 {
		fmt.Fprintf(w, "(degraded: %s)\n", strings.Join(resp.Degraded, ", "))
	}
	for i, n := range resp.Notes {
		fmt.Fprintf(w, "%2d. %s  [%s]  %.4f  (%s)\n", i+1, n.Path, n.Vault, n.Score, n.Why)
		if n.LineStart > 0 {
			fmt.Fprintf(w, "    %s:L%d-L%d", n.Path, n.LineStart, n.LineEnd)
			if n.Heading != "" {
				fmt.Fprintf(w, "  § %s", n.Heading)
			}
			fmt.Fprintln(w)
		}
	}
}

// pluginsCmd is ragctl plugins.
type pluginsCmd struct{ json bool }

func (c *pluginsCmd) flags(fs *FlagSet) { fs.jsonFlag(&c.json) }

func (c *pluginsCmd) run(ctx context.Context, e *env, args []string) int {
	if len(args) > 0 {
		return e.usage("plugins", "no arguments expected")
	}
	cl := e.client()
	defer cl.Close()
	resp, err := cl.Plugins(ctx)
	if err != nil {
		return e.fail(err)
	}
	if c.json {
		writeJSON(e.stdout, resp)
		return exitOK
	}
	printPlugins(e.stdout, resp)
	return exitOK
}

func printPlugins(w io.Writer, resp *ipc.PluginsResponse) {
	if len(resp.Plugins) == 0 {
		fmt.Fprintln(w, "no plugins")
		return
	}
	fmt.Fprintf(w, "%-14s %-10s %-9s %8s %8s %7s %9s %9s  %s\n", "NAME", "KIND", "STATE", "RESTARTS", "CALLS", "ERRORS", "P50", "P95", "COMMAND")
	for _, p := range resp.Plugins {
		cmd := p.Command
		switch {
		case p.InProcess:
			cmd = "built-in, in ragd's process"
		case p.Builtin:
			cmd = "built-in"
		}
		fmt.Fprintf(w, "%-14s %-10s %-9s %8d %8d %7d %9s %9s  %s\n", p.Name, p.Kind, p.State, p.Restarts,
			p.Calls, p.Errors, callTime(p.P50MS), callTime(p.P95MS), cmd)
		if p.LastError != "" {
			fmt.Fprintf(w, "    last error: %s\n", p.LastError)
		}
	}
}

// callTime formats a call latency: in microseconds under 0.1 ms (an
// in-process call), else in milliseconds.
func callTime(ms float64) string {
	if ms > 0 && ms < 0.1 {
		return fmt.Sprintf("%.0fµs", ms*1000)
	}
	return fmt.Sprintf("%.1fms", ms)
}

// absIfExists makes a path given on the command line absolute when it
// names an existing file, so the daemon can find its vault.
func absIfExists(p string) (string, error) {
	if filepath.IsAbs(p) {
		return p, nil
	}
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return filepath.Abs(p)
}
