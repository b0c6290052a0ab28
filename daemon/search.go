package daemon

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query"
)

// Search implements ipc.Backend.
func (d *Daemon) Search(ctx context.Context, req ipc.SearchRequest) (*ipc.SearchResponse, error) {
	d.awaitStartup(ctx)
	start := time.Now()
	res, err := d.engine.Search(ctx, query.Request{Text: req.Query, K: req.K, Vaults: req.Vaults,
		PathPrefix: req.PathPrefix, NoText: req.NoText, Channels: req.Channels, Weights: req.Weights,
		Mode: req.Mode, Explain: req.Explain, Fusion: req.Fusion, NoRerank: req.NoRerank,
		Passages: req.Passages, SnippetWidth: req.SnippetWidth})
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
	res, block, err := d.engine.Context(ctx, query.Request{Text: req.Query, K: req.K, Vaults: req.Vaults,
		PathPrefix: req.PathPrefix, Mode: req.Mode}, query.ContextOptions{Budget: req.Budget, Style: req.Style})
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
		resp.Notes = append(resp.Notes, ipc.SimilarNote{Vault: n.Vault, Path: n.Path, AbsPath: n.AbsPath,
			Title: n.Title, Score: n.Score, LineStart: n.Best.LineStart, LineEnd: n.Best.LineEnd,
			Heading: strings.Join(n.Best.Heading, " > "), Why: strings.Join(n.Why, "+")})
	}
	resp.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, nil
}
