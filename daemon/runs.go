package daemon

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
)

// beginRun records the start of an ingestion run in one vault.
func (d *Daemon) beginRun(j *job, vault string) *ipc.Run {
	start := time.Now().UTC()
	r := &ipc.Run{ID: fmt.Sprintf("%x", start.UnixNano()), Vault: vault, Trigger: j.trigger, Paths: len(j.paths), Start: start}
	if j.trigger != triggerWatch && j.trigger != triggerPeriodic {
		// Watch and periodic runs are recorded when they end, and only if
		// they did something, so an idle daemon does not churn the store.
		d.saveRun(r)
	}
	rc := *r // subscribers get a snapshot; r keeps changing
	d.events.publish(ipc.Event{Type: ipc.EventRunStarted, Vault: vault, Run: &rc})
	return r
}

// endRun records the outcome of a run.
func (d *Daemon) endRun(r *ipc.Run, res ipc.ReindexResult) {
	end := time.Now().UTC()
	r.End = &end
	r.Indexed, r.Unchanged, r.Removed, r.Failed, r.Error = res.Indexed, res.Unchanged, res.Removed, res.Failed, res.Error
	quiet := r.Indexed+r.Removed+r.Failed == 0 && r.Error == ""
	if !(quiet && (r.Trigger == triggerWatch || r.Trigger == triggerPeriodic)) {
		d.saveRun(r)
	}
	rc := *r
	d.events.publish(ipc.Event{Type: ipc.EventRunFinished, Vault: r.Vault, Run: &rc, Error: r.Error})
}

func (d *Daemon) saveRun(r *ipc.Run) {
	if err := d.store.PutRun(r.Start.UnixNano(), r); err != nil {
		d.pauseForSpace(err)
		if !errors.Is(err, index.ErrDiskFull) {
			d.log.Warn("cannot record ingestion run", "err", err)
		}
	}
}

// Runs implements ipc.Backend.
func (d *Daemon) Runs(ctx context.Context, limit int) (*ipc.RunsResponse, error) {
	raw, err := d.store.Runs(limit)
	if err != nil {
		return nil, err
	}
	resp := &ipc.RunsResponse{Runs: make([]ipc.Run, 0, len(raw))}
	for _, b := range raw {
		var r ipc.Run
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("run record: %w", err)
		}
		resp.Runs = append(resp.Runs, r)
	}
	return resp, nil
}

// Subscribe implements ipc.Backend.
func (d *Daemon) Subscribe() (<-chan ipc.Event, func()) { return d.events.subscribe() }
