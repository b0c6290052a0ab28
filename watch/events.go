package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// The event loop: fsnotify's events merged into batches of changed paths,
// debounced, with the folders that appear watched and those that go
// forgotten.

// Run delivers batches on out until ctx is cancelled or the watcher is
// closed. Events keep being read and merged while a batch waits for the
// receiver, so a slow indexer never blocks the kernel queue.
func (w *Watcher) Run(ctx context.Context, out chan<- Batch) error {
	pending := make(map[string]bool)
	var rescan, rootGone bool
	var first, last time.Time
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var send chan<- Batch // non-nil while ready waits for the receiver
	var ready Batch

	for {
		var fire <-chan time.Time
		if send == nil && (len(pending) > 0 || rescan || rootGone) {
			deadline := last.Add(w.opt.Debounce)
			if limit := first.Add(w.opt.MaxDelay); limit.Before(deadline) {
				deadline = limit
			}
			timer.Reset(time.Until(deadline))
			fire = timer.C
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return nil
			}
			if w.record(ev, pending, &rootGone, &rescan) {
				last = time.Now()
				if first.IsZero() {
					first = last
				}
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return nil
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.opt.Logger.Warn("file events were lost (queue overflow); rescanning the vault", "root", w.root)
			} else {
				w.opt.Logger.Warn("watch error; rescanning the vault", "root", w.root, "err", err)
			}
			rescan = true
			last = time.Now()
			if first.IsZero() {
				first = last
			}
		case <-fire:
			ready = Batch{Rescan: rescan, RootGone: rootGone}
			for p := range pending {
				ready.Paths = append(ready.Paths, p)
			}
			sort.Strings(ready.Paths)
			clear(pending)
			rescan, rootGone, first = false, false, time.Time{}
			send = out
		case send <- ready:
			send, ready = nil, Batch{}
		}
	}
}

// watchFolder watches folder dir (rel in the vault) and everything in it,
// and marks it and the files it holds pending; a folder it cannot watch
// asks for a rescan, with warning msg.
func (w *Watcher) watchFolder(dir, rel, msg string, pending map[string]bool, rescan *bool) {
	files, err := w.addTree(dir, true)
	if err != nil {
		w.opt.Logger.Warn(msg, "dir", rel, "err", err)
		*rescan = true
	}
	for _, f := range files {
		pending[f] = true
	}
	pending[rel] = true
}

// record merges one event into the pending set. It reports whether the
// event mattered.
func (w *Watcher) record(ev fsnotify.Event, pending map[string]bool, rootGone, rescan *bool) bool {
	if filepath.Clean(ev.Name) == w.root {
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			*rootGone = true
			return true
		}
		return false
	}
	rel := w.rel(ev.Name)
	if rel == "" || w.underExcluded(rel) {
		return false
	}
	if ev.Op == fsnotify.Chmod {
		// A folder that could not be read may be readable now.
		w.mu.Lock()
		_, skipped := w.unreadable[rel]
		w.mu.Unlock()
		if !skipped {
			return false
		}
		w.watchFolder(ev.Name, rel, "cannot watch a folder; rescanning", pending, rescan)
		return true
	}
	switch {
	case ev.Has(fsnotify.Create):
		fi, err := os.Lstat(ev.Name)
		if err == nil && fi.IsDir() {
			if w.filter.ExcludedDir(rel) {
				return false
			}
			// A new (or moved-in) directory: watch it and everything in it,
			// and index the files it already holds.
			w.watchFolder(ev.Name, rel, "cannot watch new directory; rescanning", pending, rescan)
			return true
		}
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		w.mu.Lock()
		known := w.known[rel]
		w.mu.Unlock()
		if known {
			// A watched directory went away (or moved): every document
			// under it is re-examined.
			w.forget(rel)
			pending[rel] = true
			return true
		}
	}
	if !w.filter.Match(rel) {
		return false // editor swap, backup and temp files, excluded files
	}
	pending[rel] = true
	return true
}

// underExcluded reports whether a parent directory of rel is excluded.
func (w *Watcher) underExcluded(rel string) bool {
	for dir := rel; ; {
		i := strings.LastIndexByte(dir, '/')
		if i < 0 {
			return false
		}
		dir = dir[:i]
		if w.filter.ExcludedDir(dir) {
			return true
		}
	}
}

// forget drops a directory and its subdirectories from the known set;
// fsnotify has already dropped their watches (deleted or moved away).
func (w *Watcher) forget(rel string) {
	var gone []string
	w.mu.Lock()
	for d := range w.known {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			delete(w.known, d)
			gone = append(gone, d)
		}
	}
	w.mu.Unlock()
	for _, d := range gone {
		w.fsw.Remove(filepath.Join(w.root, filepath.FromSlash(d)))
	}
}
