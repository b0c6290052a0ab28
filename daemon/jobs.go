package daemon

import (
	"context"
	"errors"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/watch"
)

// job is one indexing pass: every vault, one vault, or one path in a vault.
type job struct {
	trigger string // startup, manual
	vault   string // "" = all
	scope   string // vault-relative file or folder, "" = whole vault
	done    chan struct{}
	results []ipc.ReindexResult
	prog    index.Progress
}

func (d *Daemon) enqueue(j *job) {
	j.done = make(chan struct{})
	d.mu.Lock()
	d.queued++
	d.mu.Unlock()
	d.jobs <- j
}

// runJobs runs passes one at a time until ctx is cancelled.
func (d *Daemon) runJobs(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-d.jobs:
			d.mu.Lock()
			d.queued--
			d.active = j
			d.mu.Unlock()
			d.runJob(ctx, j)
			d.mu.Lock()
			d.active = nil
			d.mu.Unlock()
			close(j.done)
		}
	}
}

func (d *Daemon) runJob(ctx context.Context, j *job) {
	names := make([]string, 0, len(d.vaults))
	for name := range d.vaults {
		if j.vault == "" || j.vault == name {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		if ctx.Err() != nil {
			return
		}
		r := d.reconcile(ctx, j, name)
		j.results = append(j.results, r)
	}
}

// reconcile scans one vault and brings the index in line with it.
func (d *Daemon) reconcile(ctx context.Context, j *job, name string) ipc.ReindexResult {
	d.mu.Lock()
	vs := d.vaults[name]
	v := vs.cfg
	d.mu.Unlock()
	res := ipc.ReindexResult{Vault: name}
	start := time.Now()
	log := d.log.With(slog.String("vault", name), slog.String("trigger", j.trigger))

	files, err := watch.Scan(ctx, v.Path, v)
	if err != nil {
		res.Error = err.Error()
		d.mu.Lock()
		vs.lastErr = err.Error()
		if errors.Is(err, watch.ErrRootMissing) {
			// Never purge a vault whose root vanished (an unmounted drive):
			// keep serving what is indexed and mark it offline.
			vs.online = false
		}
		d.mu.Unlock()
		log.Warn("vault scan failed; keeping its index as it is", "err", err)
		return res
	}
	in := make([]index.File, 0, len(files))
	for _, f := range files {
		if index.InScope(f.Rel, j.scope) {
			in = append(in, index.File{Rel: f.Rel, Abs: f.Abs, Size: f.Size, ModTime: f.ModTime})
		}
	}
	sr, err := d.store.Sync(ctx, index.SyncOptions{
		Vault: name, MaxBytes: v.MaxFileBytes(), Chunk: d.chunkOptions(), Workers: d.cfg.Index.Workers,
		Complete: true, Scope: j.scope, Progress: &j.prog,
	}, in)
	res.Indexed, res.Unchanged, res.Removed, res.Failed = sr.Indexed, sr.Unchanged, sr.Removed, sr.Failed
	now := time.Now()
	d.mu.Lock()
	vs.online = true
	vs.lastErr = ""
	if err != nil && !errors.Is(err, context.Canceled) {
		vs.lastErr = err.Error()
		res.Error = err.Error()
	}
	if err == nil {
		vs.lastReconcile = &now
	}
	d.mu.Unlock()
	log.Info("reconciled", "files", len(in), "indexed", sr.Indexed, "unchanged", sr.Unchanged,
		"removed", sr.Removed, "failed", sr.Failed, "scope", j.scope,
		"took", time.Since(start).Round(time.Millisecond), "err", err)
	return res
}

// scopeOf normalises a reindex path to a vault-relative scope.
func scopeOf(vaultRoot, p string) string {
	p = strings.TrimPrefix(p, vaultRoot)
	return strings.Trim(strings.ReplaceAll(p, "\\", "/"), "/")
}
