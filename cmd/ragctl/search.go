package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ragd/ragd/ipc"
)

func runSearch(ctx context.Context, e *env, args []string) int {
	fs := e.flags("search")
	k := fs.Int("k", ipc.DefaultK, "number of results")
	vault := fs.String("vault", "", "search only this vault (comma-separated for several)")
	path := fs.String("path", "", "search only files under this vault-relative path")
	asJSON := fs.Bool("json", false, "print JSON")
	mode := fs.String("mode", "", "hybrid (default), lexical or vector")
	explain := fs.Bool("explain", false, "show each channel's rank and score per result")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	q := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if q == "" {
		fmt.Fprintln(e.stderr, "usage: ragctl search [-k N] [-vault V] [-path P] [-mode M] [-explain] [-json] QUERY")
		return exitUsage
	}
	req := ipc.SearchRequest{Query: q, K: *k, PathPrefix: *path, Mode: *mode, Explain: *explain}
	if *vault != "" {
		req.Vaults = strings.Split(*vault, ",")
	}
	c := e.client()
	defer c.Close()
	resp, err := c.Search(ctx, req)
	if err != nil {
		return e.fail(err)
	}
	if *asJSON {
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
