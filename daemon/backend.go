package daemon

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query"
)

// maxFailedListed bounds the failed files listed per vault in status.
const maxFailedListed = 200

// Search implements ipc.Backend.
func (d *Daemon) Search(ctx context.Context, req ipc.SearchRequest) (*ipc.SearchResponse, error) {
	start := time.Now()
	for _, v := range req.Vaults {
		if _, ok := d.vaults[v]; !ok {
			return nil, ipc.NotFound("no vault named %q", v)
		}
	}
	for ch, w := range req.Weights {
		if ch != query.ChannelLexical && ch != query.ChannelGraph || w < 0 || w > 100 {
			return nil, ipc.BadRequest("bad weight %s=%v: channels are %q and %q, weights 0 to 100", ch, w, query.ChannelLexical, query.ChannelGraph)
		}
	}
	for _, ch := range req.Channels {
		if ch != query.ChannelLexical && ch != query.ChannelGraph {
			return nil, ipc.BadRequest("unknown channel %q: use %q or %q", ch, query.ChannelLexical, query.ChannelGraph)
		}
	}
	rs, err := d.engine.Search(ctx, query.Request{Text: req.Query, K: req.K, Vaults: req.Vaults,
		PathPrefix: req.PathPrefix, NoText: req.NoText, Channels: req.Channels, Weights: req.Weights})
	if err != nil {
		return nil, err
	}
	resp := &ipc.SearchResponse{Query: req.Query, Results: make([]ipc.Result, 0, len(rs))}
	for _, r := range rs {
		var abs string
		if vs := d.vaults[r.Vault]; vs != nil {
			abs = filepath.Join(vs.cfg.Path, filepath.FromSlash(r.Path))
		}
		resp.Results = append(resp.Results, ipc.Result{
			ID: r.Ref.String(), Vault: r.Vault, Path: r.Path, AbsPath: abs, Title: r.Title,
			LineStart: r.LineStart, LineEnd: r.LineEnd,
			Heading: strings.Join(r.Heading, " > "), Headings: r.Heading,
			Score: r.Score, Text: r.Text,
		})
	}
	resp.TookMS = float64(time.Since(start).Microseconds()) / 1000
	return resp, nil
}

// Status implements ipc.Backend.
func (d *Daemon) Status(ctx context.Context) (*ipc.StatusResponse, error) {
	counts, err := d.store.Counts()
	if err != nil {
		return nil, err
	}
	resp := &ipc.StatusResponse{
		State: ipc.StateIdle, Version: Version, Protocol: ipc.ProtocolVersion, PID: os.Getpid(),
		StartedAt: d.started, Config: d.cfg.File, DataDir: d.cfg.Daemon.DataDir, Socket: d.cfg.Daemon.Socket,
		Semantic: "off: ragd runs lexical (BM25) and graph search; semantic search arrives with embedder plugins",
		Graph:    d.graphStatus(),
	}
	queued := d.queue.pending("")
	d.mu.Lock()
	if d.active != nil || queued > 0 {
		resp.State = ipc.StateIndexing
	}
	if j := d.active; j != nil {
		resp.Progress = progressOf(j)
	}
	for _, vs := range d.vaults {
		c := counts[vs.cfg.Name]
		watching := vs.watching
		if !vs.online {
			watching = watchOffline
		}
		resp.Vaults = append(resp.Vaults, ipc.VaultStatus{
			Name: vs.cfg.Name, Path: vs.cfg.Path, Online: vs.online,
			Documents: c.Documents, Chunks: c.Chunks, Failed: c.Failed,
			LastReconcile: vs.lastReconcile, LastError: vs.lastErr,
			Watching: watching, Queued: d.queue.pending(vs.cfg.Name),
		})
	}
	d.mu.Unlock()
	sort.Slice(resp.Vaults, func(i, j int) bool { return resp.Vaults[i].Name < resp.Vaults[j].Name })
	for i := range resp.Vaults {
		v := &resp.Vaults[i]
		if v.Failed == 0 {
			continue
		}
		docs, err := d.store.FailedDocuments(v.Name, maxFailedListed)
		if err != nil {
			return nil, err
		}
		for _, doc := range docs {
			v.FailedFiles = append(v.FailedFiles, ipc.FailedFile{Path: doc.Path, Error: doc.Error})
		}
	}
	return resp, nil
}

// progressOf reports a running pass with its rate and estimated time left.
func progressOf(j *job) *ipc.Progress {
	p := &ipc.Progress{Vault: j.vault, Trigger: j.trigger, Total: j.prog.Total.Load(), Done: j.prog.Done.Load()}
	if secs := time.Since(j.started).Seconds(); secs > 0 && p.Done > 0 {
		p.Rate = float64(p.Done) / secs
		p.ETASeconds = float64(p.Total-p.Done) / p.Rate
	}
	return p
}

// Reindex implements ipc.Backend.
func (d *Daemon) Reindex(ctx context.Context, req ipc.ReindexRequest) (*ipc.ReindexResponse, error) {
	j := &job{trigger: triggerManual, vault: req.Vault}
	if req.Vault != "" {
		if _, ok := d.vaults[req.Vault]; !ok {
			return nil, ipc.NotFound("no vault named %q", req.Vault)
		}
	}
	if req.Path != "" {
		if j.vault == "" {
			if len(d.vaults) != 1 {
				return nil, ipc.BadRequest("path %q needs a vault: %d vaults are configured", req.Path, len(d.vaults))
			}
			for name := range d.vaults {
				j.vault = name
			}
		}
		root := d.vaults[j.vault].cfg.Path
		p := req.Path
		if filepath.IsAbs(p) {
			if !strings.HasPrefix(p, root+string(filepath.Separator)) && p != root {
				return nil, ipc.BadRequest("path %q is outside vault %q (%s)", req.Path, j.vault, root)
			}
		}
		scope := scopeOf(root, p)
		if strings.HasPrefix(path.Clean("/"+scope), "/..") || strings.Contains("/"+scope+"/", "/../") {
			return nil, ipc.BadRequest("path %q escapes the vault", req.Path)
		}
		j.paths = []string{scope}
	}
	d.queue.push(j)
	if !req.Wait {
		return &ipc.ReindexResponse{}, nil
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &ipc.ReindexResponse{Vaults: j.results, Done: true}, nil
}
