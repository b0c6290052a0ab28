package daemon

import (
	"context"

	"github.com/ragd/ragd/ipc"
)

// Graph implements ipc.Backend.
func (d *Daemon) Graph(ctx context.Context, req ipc.GraphRequest) (*ipc.GraphResponse, error) {
	return d.engine.Graph(ctx, d.store, req)
}

// graphStatus summarises the graph: sizes the index keeps as it writes
// (O(1)), and the result of its last consistency check, which runs after
// every pass but watch passes (runJobs).
func (d *Daemon) graphStatus() *ipc.GraphStatus {
	gs := d.store.GraphStats()
	return &ipc.GraphStatus{Notes: gs.Notes, Tags: gs.Tags, Typed: gs.Typed, Relations: gs.Relations,
		Unresolved: gs.Unresolved, Consistent: gs.Problem == "", Problem: gs.Problem}
}
