package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ragd/ragd/ipc"
)

// getCmd is ragctl get PATH[:L10-L40]: the indexed text of a file, or of a
// cited range of it. For PDF, DOCX and HTML it is the extracted text, whose
// lines are the ones citations name.
type getCmd struct {
	vault   string
	numbers bool
	json    bool
}

func (c *getCmd) flags(fs *FlagSet) {
	fs.vault(&c.vault, false, "the `VAULT` holding the file (when several do)")
	fs.BoolVar(&c.numbers, "n", false, "number the lines (and mark where PDF pages begin)")
	fs.jsonFlag(&c.json)
}

func (c *getCmd) completeArg(arg int, _ []string) completion {
	if arg == 0 {
		return completion{source: sourceNotes}
	}
	return completion{}
}

// lineRange matches a citation's range: ":L10-L40", ":L10", ":10-40".
var lineRange = regexp.MustCompile(`:L?(\d+)(?:-L?(\d+))?$`)

// parseCitation splits "path:L10-L40" into the path and its lines.
func parseCitation(s string) (path string, from, to int, err error) {
	m := lineRange.FindStringSubmatchIndex(s)
	if m == nil {
		return s, 0, 0, nil
	}
	path = s[:m[0]]
	from, _ = strconv.Atoi(s[m[2]:m[3]])
	to = from
	if m[4] >= 0 {
		to, _ = strconv.Atoi(s[m[4]:m[5]])
	}
	if from < 1 || to < from {
		return "", 0, 0, fmt.Errorf("bad line range %q: want :L10-L40 (from 1, increasing)", s[m[0]:])
	}
	return path, from, to, nil
}

func (c *getCmd) run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		return e.usage("get", "no file given")
	}
	// A title with spaces may come unquoted.
	path, from, to, err := parseCitation(strings.Join(args, " "))
	if err != nil {
		return e.usage("get", err.Error())
	}
	if abs, err := absIfExists(path); err == nil {
		path = abs
	}
	cl := e.client()
	defer cl.Close()
	resp, err := cl.Document(ctx, ipc.DocumentRequest{Vault: c.vault, Path: path, LineStart: from, LineEnd: to})
	if err != nil {
		return e.fail(err)
	}
	if c.json {
		writeJSON(e.stdout, resp)
		return exitOK
	}
	printDocument(e.stdout, resp, c.numbers)
	if resp.Stale {
		fmt.Fprintf(e.stderr, "ragctl: %s changed since it was indexed: these lines may differ from its citations\n", resp.Path)
	}
	if resp.Truncated {
		fmt.Fprintf(e.stderr, "ragctl: cut at %d lines or 1 MiB; continue with: ragctl get %q\n", 2000,
			fmt.Sprintf("%s:L%d-", resp.Path, resp.NextLine)+rangeEnd(to))
	}
	return exitOK
}

func rangeEnd(to int) string {
	if to == 0 {
		return ""
	}
	return "L" + strconv.Itoa(to)
}

// printDocument writes the text, with -n numbered like citations and with
// a marker where each PDF page begins.
func printDocument(w io.Writer, d *ipc.DocumentResponse, numbers bool) {
	if !numbers {
		io.WriteString(w, d.Text)
		if d.Text != "" && !strings.HasSuffix(d.Text, "\n") {
			fmt.Fprintln(w)
		}
		return
	}
	width := len(strconv.Itoa(max(d.LineEnd, 1)))
	pages := map[int]int{}
	for i, l := range d.Pages {
		pages[l] = i + 1
	}
	line := d.LineStart
	for _, l := range strings.SplitAfter(d.Text, "\n") {
		if l == "" {
			continue
		}
		if p, ok := pages[line]; ok {
			fmt.Fprintf(w, "%*s  ── page %d ──\n", width, "", p)
		}
		fmt.Fprintf(w, "%*d  %s", width, line, l)
		if !strings.HasSuffix(l, "\n") {
			fmt.Fprintln(w)
		}
		line++
	}
}
