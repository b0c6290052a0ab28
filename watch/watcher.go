package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
)

// ErrWatchLimit is returned by New when the kernel's limit on watches
// (fs.inotify.max_user_watches) is exhausted; the caller should fall back to
// periodic scanning for the vault.
var ErrWatchLimit = errors.New("inotify watch limit reached")

// Options configure a Watcher.
type Options struct {
	// Debounce is the quiet period after the last event before a batch is
	// emitted: bursts of events on a file become one reindex. Default 100 ms.
	Debounce time.Duration
	// MaxDelay bounds how long a continuous stream of events can hold a
	// batch back. Default 2 s.
	MaxDelay time.Duration
	Logger   *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Debounce <= 0 {
		o.Debounce = 100 * time.Millisecond
	}
	if o.MaxDelay < o.Debounce {
		o.MaxDelay = max(2*time.Second, o.Debounce)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Batch is what changed in a vault during one debounce window.
type Batch struct {
	// Paths are the vault-relative files and folders that were created,
	// written, removed or renamed, sorted. A path that no longer exists
	// means its document (or every document under it) is gone.
	Paths []string
	// Rescan says events were lost (queue overflow): reconcile the whole
	// vault; the disk is the truth.
	Rescan bool
	// RootGone says the vault root itself was removed or moved.
	RootGone bool
}

// Watcher turns fsnotify events under a vault root into debounced
// batches. fsnotify has no recursive watch on Linux, so every directory is
// watched on its own: at start, and as directories appear.
type Watcher struct {
	root   string
	filter Filter
	opt    Options
	fsw    *fsnotify.Watcher
	known  map[string]bool // watched directories, vault-relative
	rootAt RootState       // the root directory when watching started

	mu         sync.Mutex
	unreadable map[string]string // folders that cannot be watched → why
}

// New watches root and every directory under it that filter does not
// exclude. It fails with ErrWatchLimit when the kernel refuses more
// watches.
func New(root string, filter Filter, opt Options) (*Watcher, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		if errors.Is(err, syscall.EMFILE) {
			return nil, fmt.Errorf("%w: too many inotify instances (fs.inotify.max_user_instances): %w", ErrWatchLimit, err)
		}
		return nil, err
	}
	w := &Watcher{root: root, filter: filter, opt: opt.withDefaults(), fsw: fsw, known: make(map[string]bool),
		unreadable: make(map[string]string)}
	if w.rootAt, err = StatRoot(root); err != nil {
		fsw.Close()
		return nil, err
	}
	if _, err := w.addTree(root); err != nil {
		fsw.Close()
		return nil, err
	}
	return w, nil
}

// Unreadable lists the folders that could not be read or watched
// (permission denied), sorted. They are skipped and the rest of the vault
// stays watched; each is tried again when its permissions change.
func (w *Watcher) Unreadable() []Skipped {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]Skipped, 0, len(w.unreadable))
	for rel, why := range w.unreadable {
		out = append(out, Skipped{Rel: rel, Reason: why})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out
}

// skip records a folder that cannot be read or watched.
func (w *Watcher) skip(rel string, err error) {
	w.mu.Lock()
	_, known := w.unreadable[rel]
	w.unreadable[rel] = reasonOf(err)
	w.mu.Unlock()
	if !known {
		w.opt.Logger.Warn("cannot watch a folder; skipping it, the rest of the vault stays watched", "dir", rel, "err", err)
	}
}

// Dirs reports how many directories are watched.
func (w *Watcher) Dirs() int { return len(w.known) + 1 }

// Alive reports whether the watcher still sees the vault: the root is the
// directory it started on (an unmounted drive leaves the mount point's
// directory of the parent file system in its place) and the kernel still
// holds its watch (inotify drops every watch of a file system that is
// unmounted, and fsnotify says nothing). A dead watcher must be replaced.
func (w *Watcher) Alive() bool {
	st, err := StatRoot(w.root)
	if err != nil || !st.SameDir(w.rootAt) {
		return false
	}
	return slices.Contains(w.fsw.WatchList(), w.root)
}

// Close stops watching.
func (w *Watcher) Close() error { return w.fsw.Close() }

// addTree watches dir and every non-excluded directory below it, and
// returns the vault-relative paths of the files found (so that files
// created together with a new directory are not missed).
func (w *Watcher) addTree(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == w.root {
				return err
			}
			if d != nil && d.IsDir() && !errors.Is(err, fs.ErrNotExist) {
				w.skip(w.rel(p), err) // unreadable
				return fs.SkipDir
			}
			return nil // vanished: skip
		}
		rel := w.rel(p)
		if !d.IsDir() {
			if rel != "" && w.filter.Match(rel) {
				files = append(files, rel)
			}
			return nil
		}
		if rel != "" && w.filter.ExcludedDir(rel) {
			return fs.SkipDir
		}
		if err := w.fsw.Add(p); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return fmt.Errorf("%w after %d directories; raise it with `sudo sysctl fs.inotify.max_user_watches=524288`", ErrWatchLimit, len(w.known))
			}
			if errors.Is(err, os.ErrNotExist) {
				return fs.SkipDir
			}
			if rel == "" {
				return fmt.Errorf("watch %s: %w", p, err)
			}
			// One folder that cannot be watched (permission denied) must
			// not cost the rest of the vault its live updates.
			w.skip(rel, err)
			return fs.SkipDir
		}
		if rel != "" {
			w.known[rel] = true
			w.mu.Lock()
			delete(w.unreadable, rel)
			w.mu.Unlock()
		}
		return nil
	})
	return files, err
}

// rel is p relative to the root, slash-separated ("" for the root).
func (w *Watcher) rel(p string) string {
	r, err := filepath.Rel(w.root, p)
	if err != nil || r == "." {
		return ""
	}
	return filepath.ToSlash(r)
}

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
		files, err := w.addTree(ev.Name)
		if err != nil {
			w.opt.Logger.Warn("cannot watch a folder; rescanning", "dir", rel, "err", err)
			*rescan = true
		}
		for _, f := range files {
			pending[f] = true
		}
		pending[rel] = true
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
			files, err := w.addTree(ev.Name)
			if err != nil {
				w.opt.Logger.Warn("cannot watch new directory; rescanning", "dir", rel, "err", err)
				*rescan = true
			}
			for _, f := range files {
				pending[f] = true
			}
			pending[rel] = true
			return true
		}
	case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
		if w.known[rel] {
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
	for d := range w.known {
		if d == rel || strings.HasPrefix(d, rel+"/") {
			delete(w.known, d)
			w.fsw.Remove(filepath.Join(w.root, filepath.FromSlash(d)))
		}
	}
}
