package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/ragd/ragd/index/ingest"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/watch"
)

// passHook, if set (by tests), is called when a pass has synced a vault,
// before the pass ends.
var passHook func(trigger, vault string)

// runJobs runs passes one at a time until ctx is cancelled.
func (d *Daemon) runJobs(ctx context.Context) {
	graphChanged := false // since the last graph check
	for {
		j := d.queue.pop(ctx)
		if j == nil {
			return
		}
		j.started = time.Now()
		done := d.working()
		d.mu.Lock()
		d.active = j
		d.mu.Unlock()
		d.runJob(ctx, j)
		d.embedding.poke()
		d.mu.Lock()
		d.active = nil
		d.mu.Unlock()
		// Whoever waits for the pass (the first query after start-up, a
		// reindex request) has its answer before the graph is checked.
		j.finish(ctx.Err() != nil)
		graphChanged = graphChanged || changedGraph(j.results)
		if ctx.Err() == nil && (j.trigger == triggerManual || j.trigger != triggerWatch && graphChanged) {
			// The graph's consistency check walks every relation: after
			// start-up, periodic and requested passes, not per saved
			// note, and only when a pass has changed something since the
			// last check (or one is requested).
			d.store.CheckGraph()
			graphChanged = false
		}
		done()
	}
}

// changedGraph reports whether a pass with these results may have changed
// the graph: it wrote or removed a document, or stopped on an error.
func changedGraph(rs []ipc.ReindexResult) bool {
	for _, r := range rs {
		if r.Indexed+r.Removed+r.Failed > 0 || r.Error != "" {
			return true
		}
	}
	return false
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
		run := d.beginRun(j, name)
		r := d.reconcile(ctx, j, name)
		d.endRun(run, r)
		j.results = append(j.results, r)
	}
}

// reconcile brings the index of one vault (or of j.paths in it) in line
// with the disk.
func (d *Daemon) reconcile(ctx context.Context, j *job, name string) ipc.ReindexResult {
	d.mu.Lock()
	vs := d.vaults[name]
	v := vs.cfg
	d.mu.Unlock()
	res := ipc.ReindexResult{Vault: name}
	start := time.Now()
	log := d.log.With(slog.String("vault", name), slog.String("trigger", j.trigger))

	if why := d.pausedForSpace(); why != "" {
		// Skipped: the pass queued when room returns covers it.
		res.Error = "indexing paused: " + why
		return res
	}
	files, rep, err := d.scanVault(ctx, vs, j.paths)
	if errors.Is(err, watch.ErrRootMissing) {
		// Never purge a vault whose root vanished (an unmounted drive):
		// keep serving what is indexed and mark it offline.
		why := "the vault's folder is missing: " + v.Path + " (an unmounted drive or a renamed folder?); keeping its index"
		d.setOffline(vs, why)
		res.Error = why
		return res
	}
	paths, verdict, why := j.paths, watch.Present, ""
	if err == nil && !j.confirm {
		files, rep, paths, verdict, why, err = d.guardPass(ctx, name, v, j.paths, files, rep)
	}
	if err != nil {
		res.Error = err.Error()
		d.mu.Lock()
		vs.lastErr = err.Error()
		d.mu.Unlock()
		if ctx.Err() == nil {
			log.Warn("vault scan failed; keeping its index as it is", "err", err)
		}
		return res
	}
	if verdict == watch.Vanished {
		d.setOffline(vs, why)
		res.Error = why
		return res
	}
	d.noteSkipped(vs, rep, paths == nil)
	var unreadable []string
	for _, u := range rep.Unreadable {
		unreadable = append(unreadable, u.Rel)
	}
	stored := d.storedDocuments(name)
	if verdict == watch.HoldDeletions {
		d.setHeld(vs, stored-len(files), stored, why)
	} else {
		d.setHeld(vs, 0, stored, "")
	}
	in := make([]ingest.File, len(files))
	for i, f := range files {
		in[i] = ingest.File{Rel: f.Rel, Abs: f.Abs, Size: f.Size, ModTime: f.ModTime, ID: f.ID}
	}
	sr, err := d.ingest.Sync(ctx, ingest.SyncOptions{
		Vault: name, MaxBytes: v.MaxFileBytes(), Chunk: d.chunkOptions(), Workers: d.cfg.Index.Workers,
		// Held removals: index what is new or changed, remove nothing.
		KeepMissing: verdict == watch.HoldDeletions, Unreadable: unreadable,
		Scopes: paths, Progress: &j.prog, Extract: d.extractFunc(ctx, j.trigger == triggerManual || j.trigger == triggerRetry),
		Enrich: d.enrichFunc(), Enricher: d.enricher(), Yield: d.yieldToClients,
		OnDoc: func(op, path, reason string) {
			d.events.publish(ipc.Event{Type: op, Vault: name, Path: path, Error: reason})
		},
	}, in)
	if passHook != nil {
		passHook(j.trigger, name)
	}
	res.Indexed, res.Unchanged, res.Removed, res.Failed = sr.Indexed, sr.Unchanged, sr.Removed, sr.Failed
	d.pauseForSpace(err)
	if err == nil || len(sr.Retry) > 0 {
		d.retry.note(name, paths, sr.Retry)
	}
	now := time.Now()
	d.mu.Lock()
	vs.online, vs.offline = true, ""
	vs.lastErr = ""
	if err != nil && !errors.Is(err, context.Canceled) {
		vs.lastErr = err.Error()
		res.Error = err.Error()
	}
	if err == nil && paths == nil {
		vs.lastReconcile = &now
	}
	d.mu.Unlock()
	level := slog.LevelInfo
	if j.trigger == triggerWatch || j.trigger == triggerPeriodic && sr.Indexed+sr.Removed+sr.Failed == 0 {
		level = slog.LevelDebug
	}
	attrs := []any{"files", len(in), "indexed", sr.Indexed, "unchanged", sr.Unchanged,
		"removed", sr.Removed, "failed", sr.Failed, "paths", len(j.paths), "took", time.Since(start).Round(time.Millisecond)}
	if err != nil {
		level = max(level, slog.LevelWarn)
		attrs = append(attrs, "err", err)
	}
	log.Log(ctx, level, "reconciled", attrs...)
	return res
}

// scanVault is scan of a vault, whose watcher, when it watches the root
// alone (the start-up pass), the whole-vault scan primes: each folder is
// watched just before it is read, so one walk serves both.
func (d *Daemon) scanVault(ctx context.Context, vs *vaultState, paths []string) ([]watch.File, watch.Report, error) {
	if paths != nil {
		return d.scan(ctx, vs.cfg.Path, vs.cfg, paths)
	}
	d.mu.Lock()
	w := vs.priming
	vs.priming = nil
	d.mu.Unlock()
	if w == nil {
		return d.scan(ctx, vs.cfg.Path, vs.cfg, nil)
	}
	return w.Scan(ctx)
}

// scan lists the vault's files, or only those under paths, with the
// folders it could not read and the special files it passed over.
func (d *Daemon) scan(ctx context.Context, root string, f watch.Filter, paths []string) ([]watch.File, watch.Report, error) {
	if paths == nil {
		return watch.ScanReport(ctx, root, "", f)
	}
	var rep watch.Report
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return nil, rep, fmt.Errorf("%w: %s", watch.ErrRootMissing, root)
	}
	var out []watch.File
	seen := make(map[string]bool)
	for _, p := range paths {
		fs, r, err := watch.ScanReport(ctx, root, p, f)
		if err != nil {
			return nil, rep, err
		}
		rep.Unreadable = append(rep.Unreadable, r.Unreadable...)
		rep.Special = append(rep.Special, r.Special...)
		for _, f := range fs {
			if !seen[f.Rel] {
				seen[f.Rel] = true
				out = append(out, f)
			}
		}
	}
	return out, rep, nil
}

// scopeOf normalises a reindex path to a vault-relative scope.
func scopeOf(vaultRoot, p string) string {
	p = strings.TrimPrefix(p, vaultRoot)
	return strings.Trim(strings.ReplaceAll(p, "\\", "/"), "/")
}
