package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ragd/ragd/ipc"
)

// maxRuns is the most runs the daemon lists at once.
const maxRuns = 1000

// runsCmd is ragctl runs.
type runsCmd struct {
	n    int
	json bool
}

func (c *runsCmd) flags(fs *FlagSet) {
	fs.intRange(&c.n, "n", 20, 1, maxRuns, "number of runs to list, `N` from 1 to 1000")
	fs.jsonFlag(&c.json)
}

// run lists recent ingestion runs, newest first.
func (c *runsCmd) run(ctx context.Context, e *env, args []string) int {
	if len(args) > 0 {
		return e.usage("runs", "no arguments expected")
	}
	cl := e.client()
	defer cl.Close()
	resp, err := cl.Runs(ctx, c.n)
	if err != nil {
		return e.fail(err)
	}
	if c.json {
		if resp.Runs == nil {
			resp.Runs = []ipc.Run{} // an empty array, not null
		}
		writeJSON(e.stdout, resp)
		return exitOK
	}
	printRuns(e.stdout, resp.Runs, time.Local)
	return exitOK
}

// printRuns writes runs as a table, start times shown in loc.
func printRuns(w io.Writer, runs []ipc.Run, loc *time.Location) {
	if len(runs) == 0 {
		fmt.Fprintln(w, "no ingestion runs recorded yet")
		return
	}
	rows := [][]string{{"START", "VAULT", "TRIGGER", "PATHS", "INDEXED", "UNCHANGED", "REMOVED", "FAILED", "DURATION", "ERROR"}}
	for _, r := range runs {
		paths := "all"
		if r.Paths > 0 {
			paths = strconv.Itoa(r.Paths)
		}
		took := "running"
		if r.End != nil {
			took = shortDuration(max(r.End.Sub(r.Start), 0))
		}
		rows = append(rows, []string{
			r.Start.In(loc).Format(time.DateTime), r.Vault, r.Trigger, paths,
			strconv.Itoa(r.Indexed), strconv.Itoa(r.Unchanged), strconv.Itoa(r.Removed), strconv.Itoa(r.Failed),
			took, r.Error,
		})
	}
	writeTable(w, rows, []bool{false, false, false, true, true, true, true, true, true, false})
}

// writeTable writes rows as columns two spaces apart, aligned right where
// right[i] is set and left otherwise, without trailing blanks.
func writeTable(w io.Writer, rows [][]string, right []bool) {
	widths := make([]int, len(right))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		b.Reset()
		for i, cell := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if right[i] {
				b.WriteString(pad + cell)
			} else {
				b.WriteString(cell + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}
