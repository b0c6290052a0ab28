package daemon

import (
	"context"
	"time"

	"github.com/ragd/ragd/ipc"
)

// Graph implements ipc.Backend.
func (d *Daemon) Graph(ctx context.Context, req ipc.GraphRequest) (*ipc.GraphResponse, error) {
	return d.engine.Graph(ctx, d.store, req)
}

// graphStatusEvery bounds how often status recomputes the graph summary
// while the index keeps changing (it walks every relation).
const graphStatusEvery = 2 * time.Second

// graphStatus summarises the graph and checks its in-memory consistency,
// cached until the index changes (and at most every graphStatusEvery).
func (d *Daemon) graphStatus() *ipc.GraphStatus {
	gen := d.store.Generation()
	d.mu.Lock()
	c := d.graphCache
	d.mu.Unlock()
	if c.status != nil && (c.gen == gen || time.Since(c.at) < graphStatusEvery) {
		return c.status
	}
	gs := d.store.GraphStats()
	st := &ipc.GraphStatus{Notes: gs.Notes, Tags: gs.Tags, Typed: gs.Typed, Relations: gs.Relations, Unresolved: gs.Unresolved, Consistent: gs.Problem == ""}
	st.Problem = gs.Problem
	d.mu.Lock()
	d.graphCache = graphCache{gen: gen, at: time.Now(), status: st}
	d.mu.Unlock()
	return st
}

type graphCache struct {
	gen    uint64
	at     time.Time
	status *ipc.GraphStatus
}
