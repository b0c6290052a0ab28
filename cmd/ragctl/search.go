package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ragd/ragd/ipc"
)

// searchCmd is ragctl search.
type searchCmd struct {
	k                 int
	vault, path, mode string
	json, explain     bool
}

func (c *searchCmd) flags(fs *FlagSet) {
	fs.intRange(&c.k, "k", ipc.DefaultK, 1, ipc.MaxK, "number of results, `N` from 1 to 1000")
	fs.vault(&c.vault, true, "search only this `VAULT` (comma-separated for several)")
	fs.StringVar(&c.path, "path", "", "search only files under this vault-relative `PATH`")
	fs.mode(&c.mode)
	fs.BoolVar(&c.explain, "explain", false, "show each channel's rank and score per result")
	fs.jsonFlag(&c.json)
}

func (c *searchCmd) run(ctx context.Context, e *env, args []string) int {
	q := strings.TrimSpace(strings.Join(args, " "))
	if q == "" {
		return e.usage("search", "no query given")
	}
	req := ipc.SearchRequest{Query: q, K: c.k, PathPrefix: c.path, Mode: c.mode, Explain: c.explain, Vaults: vaults(c.vault)}
	cl := e.client()
	defer cl.Close()
	resp, err := cl.Search(ctx, req)
	if err != nil {
		return e.fail(err)
	}
	if c.json {
		writeJSON(e.stdout, resp)
	} else {
		printResultsColored(e.stdout, resp, e.colors())
	}
	if len(resp.Results) == 0 {
		return exitFail
	}
	return exitOK
}

func printResults(w io.Writer, resp *ipc.SearchResponse) { printResultsColored(w, resp, palette{}) }

// printResultsColored prints results, coloured on a terminal.
func printResultsColored(w io.Writer, resp *ipc.SearchResponse, c palette) {
	if len(resp.Results) == 0 {
		fmt.Fprintf(w, "no results for %q\n", resp.Query)
		for _, s := range resp.Suggestions {
			fmt.Fprintf(w, "  - %s\n", s)
		}
		return
	}
	if len(resp.Degraded) > 0 {
		fmt.Fprintln(w, c.warn(fmt.Sprintf("(degraded: %s)", strings.Join(resp.Degraded, ", "))))
	}
	for i, r := range resp.Results {
		heading := r.Heading
		if heading == "" {
			heading = r.Title
		}
		page := ""
		if r.Page > 0 {
			page = fmt.Sprintf(" (p. %d)", r.Page)
		}
		stale := ""
		if r.Stale {
			stale = "  (stale: file changed since indexing)"
		}
		fmt.Fprintf(w, "%2d. %s%s  %s%s\n", i+1, c.path(fmt.Sprintf("%s:L%d-L%d", r.Path, r.LineStart, r.LineEnd)), page,
			c.dim(fmt.Sprintf("[%s]  %.3f", r.Vault, r.Score)), c.warn(stale))
		if heading != "" {
			fmt.Fprintf(w, "    %s\n", c.heading("§ "+heading))
		}
		if x := r.Explain; x != nil {
			var parts []string
			for _, c := range x.Channels {
				parts = append(parts, fmt.Sprintf("%s #%d %.3f", c.Channel, c.Rank, c.Score))
			}
			line := "    explain: " + strings.Join(parts, ", ") + fmt.Sprintf("; fused %.4f", x.Fused)
			if x.Reranked != 0 {
				line += fmt.Sprintf("; reranked %.4f", x.Reranked)
			}
			fmt.Fprintln(w, line)
		}
		if s := snippet(r.Text, 160); s != "" {
			fmt.Fprintf(w, "    %s\n", s)
		}
	}
}

// snippet flattens text to one line of at most n runes.
func snippet(text string, n int) string {
	s := strings.Join(strings.Fields(text), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}
