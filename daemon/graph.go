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
// (O(1)), and the result of its last consistency check (runJobs). While
// the graph is still loading after a restart it is nil: status never
// waits for the load.
func (d *Daemon) graphStatus() *ipc.GraphStatus {
	select {
	case <-d.store.GraphLoaded():
	default:
		return nil
	}
	gs := d.store.GraphStats()
	return &ipc.GraphStatus{Notes: gs.Notes, Tags: gs.Tags, Typed: gs.Typed, Relations: gs.Relations,
		Unresolved: gs.Unresolved, Consistent: gs.Problem == "", Problem: gs.Problem}
}
