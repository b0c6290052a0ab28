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

func runContext(ctx context.Context, e *env, args []string) int {
	fs := e.flags("context")
	k := fs.Int("k", 8, "chunks to retrieve")
	vault := fs.String("vault", "", "search only this vault (comma-separated for several)")
	path := fs.String("path", "", "search only files under this vault-relative path")
	budget := fs.Int("budget", ipc.DefaultContextBudget, "most characters of quoted text")
	summary := fs.Bool("summary", false, "paths and preview lines instead of full snippets")
	mode := fs.String("mode", "", "hybrid (default), lexical or vector")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	q := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if q == "" {
		fmt.Fprintln(e.stderr, "usage: ragctl context [-k N] [-budget CHARS] [-summary] [-json] QUERY")
		return exitUsage
	}
	req := ipc.ContextRequest{Query: q, K: *k, PathPrefix: *path, Budget: *budget, Mode: *mode}
	if *summary {
		req.Style = "summary"
	}
	if *vault != "" {
		req.Vaults = strings.Split(*vault, ",")
	}
	c := e.client()
	defer c.Close()
	resp, err := c.Context(ctx, req)
	if err != nil {
		return e.fail(err)
	}
	if *asJSON {
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

func runSimilar(ctx context.Context, e *env, args []string) int {
	fs := e.flags("similar")
	k := fs.Int("k", ipc.DefaultK, "notes to list")
	vault := fs.String("vault", "", "the vault holding PATH (when several do)")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(e.stderr, "usage: ragctl similar [-k N] [-vault V] [-json] PATH")
		return exitUsage
	}
	p := fs.Arg(0)
	if abs, err := absIfExists(p); err == nil {
		p = abs
	}
	c := e.client()
	defer c.Close()
	resp, err := c.Similar(ctx, ipc.SimilarRequest{Vault: *vault, Path: p, K: *k})
	if err != nil {
		return e.fail(err)
	}
	if *asJSON {
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

func runPlugins(ctx context.Context, e *env, args []string) int {
	fs := e.flags("plugins")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	c := e.client()
	defer c.Close()
	resp, err := c.Plugins(ctx)
	if err != nil {
		return e.fail(err)
	}
	if *asJSON {
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
		if p.Builtin {
			cmd = "built-in"
		}
		fmt.Fprintf(w, "%-14s %-10s %-9s %8d %8d %7d %7.1fms %7.1fms  %s\n", p.Name, p.Kind, p.State, p.Restarts,
			p.Calls, p.Errors, p.P50MS, p.P95MS, cmd)
		if p.LastError != "" {
			fmt.Fprintf(w, "    last error: %s\n", p.LastError)
		}
	}
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
