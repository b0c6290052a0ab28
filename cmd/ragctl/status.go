package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/ragd/ragd/ipc"
)

func runStatus(ctx context.Context, e *env, args []string) int {
	fs := e.flags("status")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	c := e.client()
	defer c.Close()
	st, err := c.Status(ctx)
	if err != nil {
		return e.fail(err)
	}
	if *asJSON {
		writeJSON(e.stdout, st)
		return exitOK
	}
	printStatus(e.stdout, st, time.Now())
	return exitOK
}

func printStatus(w io.Writer, st *ipc.StatusResponse, now time.Time) {
	state := st.State
	if p := st.Progress; p != nil && p.Total > 0 {
		state = fmt.Sprintf("%s (%d/%d files)", state, p.Done, p.Total)
	}
	fmt.Fprintf(w, "ragd %s, protocol %d, pid %d, up %s: %s\n", st.Version, st.Protocol, st.PID,
		now.Sub(st.StartedAt).Round(time.Second), state)
	if st.Config != "" {
		fmt.Fprintf(w, "config:   %s\n", st.Config)
	}
	fmt.Fprintf(w, "socket:   %s\ndata dir: %s\nsemantic: %s\n\n", st.Socket, st.DataDir, st.Semantic)
	if len(st.Vaults) == 0 {
		fmt.Fprintln(w, "no vaults configured: add a [[vault]] table to ragd.toml")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "VAULT\tDOCS\tCHUNKS\tFAILED\tLAST SCAN\t")
	for _, v := range st.Vaults {
		last := "never"
		if v.LastReconcile != nil {
			last = now.Sub(*v.LastReconcile).Round(time.Second).String() + " ago"
		}
		if !v.Online {
			last = "OFFLINE"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t\n", v.Name, v.Documents, v.Chunks, v.Failed, last)
	}
	tw.Flush()
	for _, v := range st.Vaults {
		fmt.Fprintf(w, "\n%s: %s\n", v.Name, v.Path)
		if v.LastError != "" {
			fmt.Fprintf(w, "  error: %s\n", v.LastError)
		}
		for _, f := range v.FailedFiles {
			fmt.Fprintf(w, "  skipped %s: %s\n", f.Path, f.Error)
		}
		if v.Failed > len(v.FailedFiles) {
			fmt.Fprintf(w, "  … and %d more (ragctl status -json lists them)\n", v.Failed-len(v.FailedFiles))
		}
	}
}
