package main

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/ipc"
)

func runReindex(ctx context.Context, e *env, args []string) int {
	fs := e.flags("reindex")
	vault := fs.String("vault", "", "reindex only this vault")
	wait := fs.Bool("wait", false, "wait until the pass is finished and print what it did")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 1 {
		fmt.Fprintln(e.stderr, "usage: ragctl reindex [-vault V] [-wait] [-json] [PATH]")
		return exitUsage
	}
	req := ipc.ReindexRequest{Vault: *vault, Path: fs.Arg(0), Wait: *wait}
	c := e.client()
	defer c.Close()
	resp, err := c.Reindex(ctx, req)
	if err != nil {
		return e.fail(err)
	}
	if *asJSON {
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
