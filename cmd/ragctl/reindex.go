package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ragd/ragd/ipc"
)

// reindexCmd is ragctl reindex.
type reindexCmd struct {
	vault               string
	wait, json, confirm bool
}

func (c *reindexCmd) flags(fs *FlagSet) {
	fs.vault(&c.vault, false, "reindex only this `VAULT`")
	fs.BoolVar(&c.wait, "wait", false, "wait until the pass is finished and print what it did")
	fs.BoolVar(&c.confirm, "confirm-deletions", false,
		"remove the documents of files that are gone even when that empties the vault or removes more than half of it")
	fs.jsonFlag(&c.json)
}

// run asks for a pass and, with -wait, prints what it did.
func (c *reindexCmd) run(ctx context.Context, e *env, args []string) int {
	if len(args) > 1 {
		return e.usage("reindex", "at most one path")
	}
	var path string
	if len(args) == 1 {
		path = args[0]
	}
	req := ipc.ReindexRequest{Vault: c.vault, Path: path, Wait: c.wait, ConfirmDeletions: c.confirm}
	cl := e.client()
	defer cl.Close()
	var resp *ipc.ReindexResponse
	var err error
	if c.wait && e.isTTY {
		resp, err = reindexWithProgress(ctx, e.stdout, cl, req)
	} else {
		resp, err = cl.Reindex(ctx, req)
	}
	if err != nil {
		return e.fail(err)
	}
	if c.json {
		writeJSON(e.stdout, resp)
		return exitOK
	}
	if !resp.Done {
		fmt.Fprintln(e.stdout, "reindex queued; `ragctl status` shows progress")
		return exitOK
	}
	code := exitOK
	for _, r := range resp.Vaults {
		fmt.Fprintf(e.stdout, "%s: %d indexed, %d unchanged, %d removed, %d failed\n",
			r.Vault, r.Indexed, r.Unchanged, r.Removed, r.Failed)
		if r.Error != "" {
			fmt.Fprintf(e.stdout, "  error: %s\n", r.Error)
			code = exitFail
		}
	}
	return code
}

// reindexWithProgress runs a waited reindex and, until it returns, polls
// the daemon's status to draw the running pass's progress bar on one
// terminal line, erased before returning. Nothing is drawn before the
// first poll, so a call that fails at once leaves the output empty.
func reindexWithProgress(ctx context.Context, w io.Writer, c *ipc.Client, req ipc.ReindexRequest) (*ipc.ReindexResponse, error) {
	type result struct {
		resp *ipc.ReindexResponse
		err  error
	}
	done := make(chan result, 1)
	go func() {
		resp, err := c.Reindex(ctx, req)
		done <- result{resp, err}
	}()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	drawn := ""
	for {
		select {
		case r := <-done:
			if drawn != "" {
				io.WriteString(w, "\r"+ansiEraseLine)
			}
			return r.resp, r.err
		case <-tick.C:
		}
		st, err := c.Status(ctx)
		if err != nil {
			continue // the reindex call reports the error
		}
		if line := reindexLine(st); line != drawn {
			io.WriteString(w, "\r"+line+ansiEraseLine)
			drawn = line
		}
	}
}

// reindexLine is the one-line progress of reindex -wait:
//
//	notes  [########............]  1234/6571 files  412/s  ETA 13s
func reindexLine(st *ipc.StatusResponse) string {
	p := st.Progress
	if p == nil {
		return "waiting for the pass to start…"
	}
	vault := p.Vault
	if vault == "" {
		vault = "all vaults"
	}
	if r := []rune(vault); len(r) > 16 {
		vault = string(r[:15]) + "…"
	}
	line := []rune(vault + "  " + progressBar(lineBarWidth, p))
	if len(line) > 79 {
		line = line[:79] // a wrapped line would defeat the carriage return
	}
	return string(line)
}
