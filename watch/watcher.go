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
	"sync"
	"sync/atomic"
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
	rootAt RootState // the root directory when watching started

	// prime is held by the walk that watches the whole vault (WatchAll or
	// Scan), which may read folders for a long time; nothing else takes it.
	prime  sync.Mutex
	primed bool // a walk has watched the whole vault; guarded by prime

	mu         sync.Mutex
	known      map[string]bool   // watched directories, vault-relative
	unreadable map[string]string // folders that cannot be watched → why
	limit      error             // ErrWatchLimit, once a walk has met it

	lost atomic.Bool // Alive found the kernel's watch of the root gone
}

// New watches root and every directory under it that filter does not
// exclude. It fails with ErrWatchLimit when the kernel refuses more
// watches.
func New(root string, filter Filter, opt Options) (*Watcher, error) {
	w, err := Open(root, filter, opt)
	if err != nil {
		return nil, err
	}
	if err := w.WatchAll(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Open watches root alone; the folders under it are watched by WatchAll,
// or by Scan, the whole-vault scan that watches each folder before it
// reads it (so one walk serves both a start-up pass and the watcher).
// Events of the folders watched so far are delivered by Run meanwhile.
func Open(root string, filter Filter, opt Options) (*Watcher, error) {
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
	if err := w.fsw.Add(root); err != nil {
		fsw.Close()
		if errors.Is(err, syscall.ENOSPC) {
			return nil, fmt.Errorf("%w; raise it with `sudo sysctl fs.inotify.max_user_watches=524288`", ErrWatchLimit)
		}
		return nil, fmt.Errorf("watch %s: %w", root, err)
	}
	return w, nil
}

// WatchAll watches every folder of the vault that filter does not
// exclude, unless a walk (WatchAll or Scan) already has. It returns
// ErrWatchLimit when the kernel refused watches, then or in that walk: the
// vault must then be scanned periodically instead.
func (w *Watcher) WatchAll() error {
	w.prime.Lock()
	defer w.prime.Unlock()
	if w.primed {
		w.mu.Lock()
		defer w.mu.Unlock()
		return w.limit
	}
	if _, err := w.addTree(w.root, false); err != nil {
		return err
	}
	w.primed = true
	return nil
}

// Scan is the whole-vault scan (ScanReport of the root) that also watches
// every folder it enters just before reading it, so that a file changed
// after the scan read its folder is an event, and a later WatchAll has
// nothing left to do. A watch the kernel refuses does not stop the scan:
// WatchAll reports it.
func (w *Watcher) Scan(ctx context.Context) ([]File, Report, error) {
	w.prime.Lock()
	defer w.prime.Unlock()
	root, realRoot, err := openRoot(w.root)
	if err != nil {
		return nil, Report{}, err
	}
	var onDir func(abs, rel string)
	if !w.primed {
		onDir = func(abs, rel string) {
			w.mu.Lock()
			full := w.limit != nil
			w.mu.Unlock()
			if !full {
				w.watchDir(abs, rel)
			}
		}
	}
	files, rep, err := walkParallel(ctx, root, realRoot, w.filter, onDir)
	if err == nil && !w.primed {
		w.primed = true
	}
	return files, rep, err
}

// watchDir watches the folder abs (rel in the vault, not the root). A
// folder that cannot be watched is recorded as unreadable; the kernel's
// refusal of more watches is recorded as the watcher's limit and returned.
func (w *Watcher) watchDir(abs, rel string) error {
	err := w.fsw.Add(abs)
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case err == nil:
		w.known[rel] = true
		delete(w.unreadable, rel)
		return nil
	case errors.Is(err, syscall.ENOSPC):
		w.limit = fmt.Errorf("%w after %d directories; raise it with `sudo sysctl fs.inotify.max_user_watches=524288`", ErrWatchLimit, len(w.known))
		return w.limit
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, fsnotify.ErrClosed):
		return err // gone, or the watcher closed while a scan watched
	}
	// One folder that cannot be watched (permission denied) must not cost
	// the rest of the vault its live updates.
	w.skipLocked(rel, err)
	return err
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
	defer w.mu.Unlock()
	w.skipLocked(rel, err)
}

func (w *Watcher) skipLocked(rel string, err error) {
	_, known := w.unreadable[rel]
	w.unreadable[rel] = reasonOf(err)
	if !known {
		w.opt.Logger.Warn("cannot watch a folder; skipping it, the rest of the vault stays watched", "dir", rel, "err", err)
	}
}

// Dirs reports how many directories are watched.
func (w *Watcher) Dirs() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.known) + 1
}

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
	if !slices.Contains(w.fsw.WatchList(), w.root) {
		w.lost.Store(true)
		return false
	}
	return true
}

// Intact is Alive for callers that ask at any rate (status): the root is
// still the directory the watcher started on — one stat, which notices an
// unmounted drive at once, since its mount point is another directory —
// and the last Alive did not find the kernel's watch of the root gone.
// It does not copy the list of watched folders, as Alive does (O(folders),
// under fsnotify's lock, which the walk watching the vault takes for every
// folder): the daemon calls Alive on a timer and replaces a dead watcher.
func (w *Watcher) Intact() bool {
	if w.lost.Load() {
		return false
	}
	fi, err := os.Stat(w.root)
	if err != nil || !fi.IsDir() {
		return false
	}
	var st RootState
	st.Dev, st.Ino = devIno(fi)
	return st.SameDir(w.rootAt)
}

// Close stops watching.
func (w *Watcher) Close() error { return w.fsw.Close() }

// addTree watches dir and every non-excluded directory below it, and
// returns the vault-relative paths of the files found if listFiles (so
// that files created together with a new directory are not missed).
func (w *Watcher) addTree(dir string, listFiles bool) ([]string, error) {
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
			if listFiles && rel != "" && w.filter.Match(rel) {
				files = append(files, rel)
			}
			return nil
		}
		if rel == "" {
			return nil // the root is watched from Open on
		}
		if w.filter.ExcludedDir(rel) {
			return fs.SkipDir
		}
		if err := w.watchDir(p, rel); err != nil {
			if errors.Is(err, ErrWatchLimit) {
				return err
			}
			return fs.SkipDir
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
