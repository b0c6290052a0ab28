package daemon

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/watch"
)

// The daemon serves every endpoint of the local API.
var _ ipc.Backend = (*Daemon)(nil)

// maxFailedListed bounds the failed files listed per vault in status.
const maxFailedListed = 200

// Status implements ipc.Backend.
func (d *Daemon) Status(ctx context.Context) (*ipc.StatusResponse, error) {
	counts, err := d.store.Counts()
	if err != nil {
		return nil, err
	}
	resp := &ipc.StatusResponse{
		State: ipc.StateIdle, Version: Version, Protocol: ipc.ProtocolVersion, PID: os.Getpid(),
		StartedAt: d.started, Config: d.cfg.File, DataDir: d.cfg.Daemon.DataDir, Socket: d.cfg.Daemon.Socket,
		Semantic: semanticOff,
		Graph:    d.graphStatus(),
		Plugins:  d.backends.mgr.Status(),
	}
	if e := d.embedding; e != nil {
		chunks := 0
		for _, c := range counts {
			chunks += c.Chunks
		}
		resp.Vector = e.status(chunks)
		resp.Semantic = fmt.Sprintf("on: embedder %s", e.name)
		if resp.Vector.Pending > 0 {
			resp.Semantic += fmt.Sprintf(" (%d chunks waiting for vectors: they are found by keywords meanwhile)", resp.Vector.Pending)
		}
		if resp.Vector.LastError != "" {
			resp.Semantic += "; embedding paused: " + resp.Vector.LastError
		}
	}
	resp.DiskFull = d.pausedForSpace()
	queued := d.queue.pending("")
	d.mu.Lock()
	switch {
	case d.active != nil || queued > 0:
		resp.State = ipc.StateIndexing
	case resp.Vector != nil && (resp.Vector.Pending > 0 || d.embedding.settling.Load()):
		resp.State = ipc.StateEmbedding
	}
	if j := d.active; j != nil {
		resp.Progress = progressOf(j)
	}
	watchers := make(map[string]*watch.Watcher)
	type skippedPaths struct{ unreadable, special []watch.Skipped }
	skipped := make(map[string]skippedPaths)
	for _, vs := range d.vaults {
		skipped[vs.cfg.Name] = skippedPaths{vs.unreadable, vs.special}
		c := counts[vs.cfg.Name]
		watching := vs.watching
		if !vs.online {
			watching = watchOffline
		}
		if watching == watchOn || vs.watcher != nil {
			watchers[vs.cfg.Name] = vs.watcher
		}
		var held *ipc.HeldDeletions
		if vs.held != nil {
			h := *vs.held
			held = &h
		}
		resp.Vaults = append(resp.Vaults, ipc.VaultStatus{
			Name: vs.cfg.Name, Path: vs.cfg.Path, Online: vs.online,
			Documents: c.Documents, Chunks: c.Chunks, Failed: c.Failed,
			LastReconcile: vs.lastReconcile, LastError: vs.lastErr,
			Watching: watching, Queued: d.queue.pending(vs.cfg.Name),
			Offline: vs.offline, HeldDeletions: held,
		})
	}
	d.mu.Unlock()
	// Never say watching for a dead watcher (an unmounted file system
	// drops its watches silently); it is replaced within rootPollInterval.
	for i := range resp.Vaults {
		v := &resp.Vaults[i]
		w := watchers[v.Name]
		if v.Watching == watchOn && (w == nil || !w.Intact()) {
			v.Watching = watchOffline
		}
		var watched []watch.Skipped
		if w != nil {
			watched = w.Unreadable()
		}
		skippedStatus(v, skipped[v.Name].unreadable, watched, skipped[v.Name].special)
	}
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

// errShuttingDown answers a reindex the daemon stopped before finishing.
var errShuttingDown = ipc.Unavailable("ragd is shutting down: the pass did not run to its end")

// Reindex implements ipc.Backend.
func (d *Daemon) Reindex(ctx context.Context, req ipc.ReindexRequest) (*ipc.ReindexResponse, error) {
	j := &job{trigger: triggerManual, vault: req.Vault, confirm: req.ConfirmDeletions}
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
		select {
		case <-j.done:
			if j.stopped {
				return nil, errShuttingDown
			}
		default:
		}
		return &ipc.ReindexResponse{}, nil
	}
	select {
	case <-j.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if j.stopped {
		return nil, errShuttingDown
	}
	return &ipc.ReindexResponse{Vaults: j.results, Done: true}, nil
}
