package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

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
	req := ipc.SearchRequest{Query: q, K: c.k, PathPrefix: c.path, Mode: c.mode, Explain: c.explain, Vaults: vaults(c.vault),
		SnippetWidth: snippetWidth(e.width)}
	cl := e.client()
	defer cl.Close()
	resp, err := cl.Search(ctx, req)
	if err != nil {
		return e.fail(err)
	}
	if c.json {
		writeJSON(e.stdout, resp)
	} else {
		printResultsColored(e.stdout, resp, e.colors(), e.width)
	}
	if len(resp.Results) == 0 {
		return exitFail
	}
	return exitOK
}

// snippetWidth is the snippet width to ask for: one output line.
func snippetWidth(width int) int {
	if width > 0 {
		return max(width-4, 20)
	}
	return defaultTextWidth
}

func printResults(w io.Writer, resp *ipc.SearchResponse) { printResultsColored(w, resp, palette{}, 0) }

// printResultsColored prints results, coloured on a terminal, each line
// fitted to width columns (0: not a terminal, no fitting).
func printResultsColored(w io.Writer, resp *ipc.SearchResponse, c palette, width int) {
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
	inner := 0 // the width of an indented line
	textWidth := defaultTextWidth
	if width > 0 {
		inner = max(width-4, 20)
		textWidth = inner
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
		cite := fmt.Sprintf("%s:L%d-L%d", r.Path, r.LineStart, r.LineEnd)
		if r.Snippet != nil && r.Snippet.Text != "" && (r.Snippet.LineStart != r.LineStart || r.Snippet.LineEnd != r.LineEnd) {
			cite = fmt.Sprintf("%s:L%d-L%d", r.Path, r.Snippet.LineStart, r.Snippet.LineEnd)
		}
		num, meta := fmt.Sprintf("%2d. ", i+1), fmt.Sprintf("[%s]  %.3f", r.Vault, r.Score)
		if width > 0 {
			// Keep the line's end (line range, score): cut the path's start.
			if over := utf8.RuneCountInString(num+cite+page+"  "+meta+stale) - width; over > 0 {
				stale = ""
				over = utf8.RuneCountInString(num+cite+page+"  "+meta) - width
				if over > 0 {
					rc := []rune(cite)
					cite = "…" + string(rc[min(over+1, len(rc)):])
				}
			}
		}
		fmt.Fprintf(w, "%s%s%s  %s%s\n", num, c.path(cite), page, c.dim(meta), c.warn(stale))
		if heading != "" {
			fmt.Fprintf(w, "    %s\n", c.heading(fit("§ "+heading, inner)))
		}
		if x := r.Explain; x != nil {
			var parts []string
			for _, c := range x.Channels {
				parts = append(parts, fmt.Sprintf("%s #%d %.3f", c.Channel, c.Rank, c.Score))
			}
			line := "explain: " + strings.Join(parts, ", ") + fmt.Sprintf("; fused %.4f", x.Fused)
			if x.Reranked != 0 {
				line += fmt.Sprintf("; reranked %.4f", x.Reranked)
			}
			fmt.Fprintln(w, "    "+fit(line, inner))
		}
		text, matches := r.Text, r.Matches
		if r.Snippet != nil && r.Snippet.Text != "" {
			text, matches = r.Snippet.Text, r.Snippet.Matches
		}
		if s := snippetLine(text, matches, textWidth, c); s != "" {
			fmt.Fprintf(w, "    %s\n", s)
		}
	}
}

func writeJSON(w io.Writer, v any) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}
