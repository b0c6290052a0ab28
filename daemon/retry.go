package daemon

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/plugins"
)

// maxAutoRetries bounds how often one file is retried automatically once
// its extractor is healthy again (a file that crashes the plugin every time
// must not keep it busy); every full pass still retries it.
const maxAutoRetries = 3

// retryCheckInterval is how often pending retries look at the extractors'
// health.
var retryCheckInterval = 2 * time.Second

// retries are the files whose extraction failed for a transient reason,
// per vault, with how often each was retried automatically.
type retries struct {
	mu      sync.Mutex
	pending map[string]map[string]int
}

// note updates the pending retries after a pass of vault over paths (nil:
// the whole vault) that left retry to be tried again.
func (r *retries) note(vault string, paths, retry []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pending == nil {
		r.pending = make(map[string]map[string]int)
	}
	old := r.pending[vault]
	next := make(map[string]int)
	for p, n := range old {
		if paths != nil && !underAnyScope(p, paths) {
			next[p] = n // not looked at by this pass
		}
	}
	for _, p := range retry {
		next[p] = old[p]
	}
	r.pending[vault] = next
}

// take returns the paths to retry now per vault, counting the attempt, and
// forgets those retried maxAutoRetries times.
func (r *retries) take() map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string][]string)
	for vault, ps := range r.pending {
		for p, n := range ps {
			if n >= maxAutoRetries {
				delete(ps, p)
				continue
			}
			ps[p] = n + 1
			out[vault] = append(out[vault], p)
		}
		sort.Strings(out[vault])
	}
	return out
}

func (r *retries) empty() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ps := range r.pending {
		if len(ps) > 0 {
			return false
		}
	}
	return true
}

func underAnyScope(p string, scopes []string) bool {
	for _, s := range scopes {
		if index.InScope(p, s) {
			return true
		}
	}
	return false
}

// retryExtractions queues, whenever files wait for a retry and every
// extractor is healthy (running or not started yet), a pass over those
// files, until ctx ends.
func (d *Daemon) retryExtractions(ctx context.Context) {
	t := time.NewTicker(retryCheckInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if d.retry.empty() || !d.extractorsHealthy() || d.pausedForSpace() != "" {
			continue
		}
		for vault, paths := range d.retry.take() {
			if len(paths) > 0 {
				d.log.Info("retrying files whose extraction failed while their extractor was down", "vault", vault, "files", len(paths))
				d.queue.push(&job{trigger: triggerRetry, vault: vault, paths: paths})
			}
		}
	}
}

// extractorsHealthy reports whether no extractor plugin is starting,
// restarting or disabled.
func (d *Daemon) extractorsHealthy() bool {
	for _, p := range d.backends.mgr.Status() {
		if p.Kind == plugins.KindExtractor && p.State != ipc.PluginRunning && p.State != ipc.PluginIdle {
			return false
		}
	}
	return true
}
