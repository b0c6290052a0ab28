package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ragd/ragd/ipc"
)

// eventsCmd is ragctl events.
type eventsCmd struct{ json bool }

func (c *eventsCmd) flags(fs *FlagSet) {
	fs.BoolVar(&c.json, "json", false, "print each event as a line of JSON")
}

// run follows the daemon's event stream until interrupted, printing one
// line per event, or each event as one line of JSON with -json.
func (c *eventsCmd) run(ctx context.Context, e *env, args []string) int {
	if len(args) > 0 {
		return e.usage("events", "no arguments expected")
	}
	cl := e.client()
	defer cl.Close()
	enc := json.NewEncoder(e.stdout) // compact: one event per line
	err := cl.Events(ctx, func(ev ipc.Event) error {
		if c.json {
			return enc.Encode(ev)
		}
		_, err := fmt.Fprintln(e.stdout, formatEvent(ev, time.Local))
		return err
	})
	switch {
	case ctx.Err() != nil:
		return exitOK // interrupted: the normal end
	case err != nil:
		return e.fail(err)
	default:
		fmt.Fprintln(e.stderr, "ragctl: ragd closed the event stream (is it shutting down?)")
		return exitFail
	}
}

// formatEvent renders ev on one line, its time shown in loc:
//
//	15:04:05 indexed notes/Restic Backups.md
//	15:04:05 failed notes/big.md: file is 80 MB, over max_file_mb 50
func formatEvent(ev ipc.Event, loc *time.Location) string {
	line := ev.Time.In(loc).Format(time.TimeOnly) + " "
	switch ev.Type {
	case ipc.EventIndexed, ipc.EventRemoved:
		line += ev.Type + " " + eventPath(ev)
	case ipc.EventRunStarted:
		line += "run started " + runLabel(ev)
	case ipc.EventRunFinished:
		line += "run finished " + runLabel(ev)
		if r := ev.Run; r != nil {
			line += fmt.Sprintf(": %d indexed, %d unchanged, %d removed, %d failed", r.Indexed, r.Unchanged, r.Removed, r.Failed)
			if r.End != nil {
				line += " in " + shortDuration(max(r.End.Sub(r.Start), 0))
			}
		}
		if ev.Error != "" {
			line += "; error: " + ev.Error
		}
		return line
	case ipc.EventLagged:
		line += "lagged: this client fell behind and missed events"
	default: // failed, and types this ragctl does not know yet
		line += ev.Type + " " + eventPath(ev)
	}
	if ev.Error != "" {
		line += ": " + ev.Error
	}
	return line
}

// eventPath is "vault/path", or the vault alone when the event has no path.
func eventPath(ev ipc.Event) string {
	if ev.Path == "" {
		return ev.Vault
	}
	return ev.Vault + "/" + ev.Path
}

// runLabel names a run's vault, trigger and scope: "notes (watch, 3 paths)".
func runLabel(ev ipc.Event) string {
	r := ev.Run
	if r == nil {
		return ev.Vault
	}
	scope := "all files"
	switch {
	case r.Paths == 1:
		scope = "1 path"
	case r.Paths > 1:
		scope = fmt.Sprintf("%d paths", r.Paths)
	}
	if r.Trigger != "" {
		scope = r.Trigger + ", " + scope
	}
	return r.Vault + " (" + scope + ")"
}
