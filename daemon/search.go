package daemon

import (
	"context"
	"fmt"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query"
)

// Search implements ipc.Backend.
func (d *Daemon) Search(ctx context.Context, req ipc.SearchRequest) (*ipc.SearchResponse, error) {
	d.awaitStartup(ctx)
	start := time.Now()
	res, err := d.engine.Search(ctx, query.SearchRequest(req))
	if err != nil {
		return nil, err
	}
	resp := &ipc.SearchResponse{Query: req.Query, Results: res.Results, Grounded: res.Grounded,
		Degraded: res.Degraded, Suggestions: d.suggestions(res)}
	if resp.Results == nil {
		resp.Results = []ipc.Result{} // [] on the wire, not null
	}
	resp.TookMS = float64(time.Since(start).Microseconds()) / 1000
	resp.EmbedMS = float64(res.EmbedTime.Microseconds()) / 1000
	return resp, nil
}

// suggestions adds the daemon's knowledge (offline vaults, embedding
// backlog) to the engine's suggestions.
func (d *Daemon) suggestions(res *query.Response) []string {
	if res.Grounded {
		// Answered: only say what the answer lacked.
		var out []string
		for i, ch := range res.Degraded {
			out = append(out, fmt.Sprintf("%s channel unavailable: %s", ch, res.DegradedWhy[i]))
		}
		return out
	}
	out := res.Suggestions // the engine's already name degraded channels
	d.mu.Lock()
	for _, vs := range d.vaults {
		if !vs.online {
			out = append(out, fmt.Sprintf("vault %q is offline (%s): its newest notes may be missing", vs.cfg.Name, vs.cfg.Path))
		}
	}
	d.mu.Unlock()
	return out
}

// Context implements ipc.Backend: retrieve, then build the cited block.
func (d *Daemon) Context(ctx context.Context, req ipc.ContextRequest) (*ipc.ContextResponse, error) {
	d.awaitStartup(ctx)
	start := time.Now()
	q, opt := query.ContextRequest(req)
	res, block, err := d.engine.Context(ctx, q, opt)
	if err != nil {
		return nil, err
	}
	resp := &ipc.ContextResponse{Query: req.Query, Grounded: res.Grounded, Degraded: res.Degraded,
		Citations: block.Citations, Suggestions: d.suggestions(res), Context: block.Text}
	if resp.Citations == nil {
		resp.Citations = []ipc.ContextCitation{}
	}
	resp.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, nil
}

// Similar implements ipc.Backend.
func (d *Daemon) Similar(ctx context.Context, req ipc.SimilarRequest) (*ipc.SimilarResponse, error) {
	d.awaitStartup(ctx)
	start := time.Now()
	vault, rel, err := d.engine.ResolveNote(req.Vault, req.Path)
	if err != nil {
		return nil, err
	}
	notes, degraded, err := d.engine.Similar(ctx, d.store, vault, rel, req.K)
	if err != nil {
		return nil, err
	}
	resp := &ipc.SimilarResponse{Vault: vault, Path: rel, Notes: []ipc.SimilarNote{}, Degraded: degraded}
	for _, n := range notes {
		resp.Notes = append(resp.Notes, n.Wire())
	}
	resp.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, nil
}
