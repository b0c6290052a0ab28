package daemon

import (
	"context"
	"errors"
	"os"
	"sync"
	"time"

	"github.com/ragd/ragd/watch"
)

// Watch states reported in status.
const (
	watchOn      = "watching"
	watchPolling = "polling"
	watchOff     = "off"
	watchOffline = "offline"
)

// rootPollInterval is how often a vault whose root vanished is checked for
// its return, and how often a vault that could not be watched is rescanned.
var (
	rootPollInterval     = 2 * time.Second
	fallbackScanInterval = 30 * time.Second
)

// watchVault keeps one vault's watcher running until ctx ends: it turns
// batches of changes into indexing passes, rescans on overflow, marks the
// vault offline when its root disappears and resumes when it returns.
//
// The first watcher is opened by the caller on the vault's root before
// the start-up pass runs (first, firstErr), and the pass's scan watches
// each folder before reading it (reconcile), so no change can fall between
// that pass's scan and the start of watching; once the pass is over
// (startup closed) the folders it did not scan are watched too. Later
// watchers are created here, whole, before the pass that follows the
// root's return is queued, for the same reason.
func (d *Daemon) watchVault(ctx context.Context, name string, first *watch.Watcher, firstErr error, startup <-chan struct{}) {
	vs := d.vaults[name]
	log := d.log.With("vault", name)
	for ctx.Err() == nil {
		w, err := first, firstErr
		var prime func(context.Context) error
		if w != nil {
			prime = func(ctx context.Context) error {
				select {
				case <-startup:
				case <-ctx.Done():
					return nil
				}
				return w.WatchAll()
			}
		}
		if w == nil && err == nil {
			w, err = d.newWatcher(name)
		}
		first, firstErr = nil, nil
		switch {
		case errors.Is(err, watch.ErrWatchLimit):
			log.Warn("cannot watch the vault; falling back to periodic scans", "every", fallbackScanInterval, "err", err)
			d.setWatching(vs, watchPolling)
			d.pollVault(ctx, name)
			return
		case err != nil:
			if _, serr := os.Stat(vs.cfg.Path); serr != nil {
				log.Warn("vault root is missing; keeping its index and waiting for it to return", "path", vs.cfg.Path)
				if first, firstErr = d.awaitRoot(ctx, name); first == nil && firstErr == nil {
					return
				}
				continue
			}
			log.Error("cannot watch the vault; falling back to periodic scans", "err", err)
			d.setWatching(vs, watchPolling)
			d.pollVault(ctx, name)
			return
		}
		d.mu.Lock()
		vs.watching, vs.watcher = watchOn, w
		d.mu.Unlock()
		end, err := d.consume(ctx, w, vs, prime)
		d.mu.Lock()
		vs.watcher = nil
		if vs.priming == w {
			vs.priming = nil
		}
		d.mu.Unlock()
		w.Close()
		if end == watchLimited {
			log.Warn("cannot watch the vault; falling back to periodic scans", "every", fallbackScanInterval, "err", err)
			d.setWatching(vs, watchPolling)
			d.pollVault(ctx, name)
			return
		}
		if end == watchStopped {
			return
		}
		log.Warn("vault root disappeared or changed; keeping its index and waiting for it to return", "path", vs.cfg.Path)
		if first, firstErr = d.awaitRoot(ctx, name); first == nil && firstErr == nil {
			return
		}
	}
}

// awaitRoot marks a vault offline, waits for its root to return, then
// starts watching it again before queueing the pass that catches up, so
// nothing saved in between is missed. It returns nil, nil when ctx ends.
func (d *Daemon) awaitRoot(ctx context.Context, name string) (*watch.Watcher, error) {
	vs := d.vaults[name]
	d.mu.Lock()
	vs.watching = watchOffline
	if vs.online {
		// The watcher died while the vault was online: whatever is at the
		// root now counts as a change, so a drive mounted again at once is
		// picked up.
		vs.online = false
		vs.offline = "the vault's folder disappeared or was replaced (an unmounted drive?); keeping its index"
		vs.offlineSeen = rootSeen{}
	}
	d.mu.Unlock()
	if !d.waitForRoot(ctx, vs) {
		return nil, nil
	}
	d.log.Info("vault root is back; reconciling", "vault", name, "path", vs.cfg.Path)
	w, err := d.newWatcher(name)
	d.queue.push(&job{trigger: triggerWatch, vault: name})
	return w, err
}

func (d *Daemon) newWatcher(name string) (*watch.Watcher, error) {
	return watch.New(d.vaults[name].cfg.Path, d.vaults[name].cfg, d.watchOptions(name))
}

func (d *Daemon) watchOptions(name string) watch.Options {
	return watch.Options{Debounce: d.cfg.Daemon.Debounce, Logger: d.log.With("vault", name)}
}

// How consume ended.
const (
	watchStopped  = iota // ctx ended
	watchRootGone        // the root went away
	watchLimited         // the kernel refused watches: scan periodically instead
)

// consume turns batches into passes until ctx ends (watchStopped) or the
// root goes away (watchRootGone): removed or moved, replaced by another
// directory (an unmounted drive leaves its mount point behind), its watch
// dropped by the kernel, or found vanished by a pass. prime, if set, runs
// beside it and watches the folders not watched yet; when it fails with
// watch.ErrWatchLimit consume ends with watchLimited and that error.
func (d *Daemon) consume(ctx context.Context, w *watch.Watcher, vs *vaultState, prime func(context.Context) error) (int, error) {
	name := vs.cfg.Name
	batches := make(chan watch.Batch)
	wctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.Run(wctx, batches) }()
	primed := make(chan error, 1)
	if prime != nil {
		wg.Add(1)
		go func() { defer wg.Done(); primed <- prime(wctx) }()
	}
	defer wg.Wait()
	defer cancel()
	d.mu.Lock()
	gen := vs.offlineGen
	d.mu.Unlock()
	check := time.NewTicker(rootPollInterval)
	defer check.Stop()
	for {
		select {
		case <-ctx.Done():
			return watchStopped, nil
		case err := <-primed:
			switch {
			case errors.Is(err, watch.ErrWatchLimit):
				return watchLimited, err
			case err != nil:
				return watchRootGone, err
			}
		case <-check.C:
			d.mu.Lock()
			vanished := vs.offlineGen != gen
			d.mu.Unlock()
			if vanished || !w.Alive() {
				return watchRootGone, nil
			}
		case b := <-batches:
			if b.RootGone {
				return watchRootGone, nil
			}
			j := &job{trigger: triggerWatch, vault: name, paths: b.Paths}
			if b.Rescan {
				j.paths = nil
			}
			d.queue.push(j)
		}
	}
}

// pollVault reconciles a vault that cannot be watched on a timer.
func (d *Daemon) pollVault(ctx context.Context, name string) {
	t := time.NewTicker(fallbackScanInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d.queue.push(&job{trigger: triggerPeriodic, vault: name})
		}
	}
}

// rescanPeriodically reconciles every vault on the configured interval:
// the watcher is a hint, the disk is the truth.
func (d *Daemon) rescanPeriodically(ctx context.Context) {
	if d.cfg.Daemon.RescanInterval <= 0 {
		return
	}
	t := time.NewTicker(d.cfg.Daemon.RescanInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			d.queue.push(&job{trigger: triggerPeriodic})
		}
	}
}

func (d *Daemon) setWatching(vs *vaultState, state string) {
	d.mu.Lock()
	vs.watching = state
	d.mu.Unlock()
}
