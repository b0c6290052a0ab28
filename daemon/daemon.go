// Package daemon wires ragd together: it opens the index, serves the local
// API on the Unix socket, and runs indexing passes over the configured
// vaults. It holds no storage or ranking logic of its own.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/index/ingest"
	"github.com/ragd/ragd/internal/version"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query"
	"github.com/ragd/ragd/watch"
)

// Version is the ragd version (see internal/version).
var Version = version.String()

// Daemon is a running ragd.
type Daemon struct {
	cfg     *config.Config
	log     *slog.Logger
	store   *index.Store
	ingest  *ingest.Ingester
	engine  *query.Engine
	started time.Time

	backends  *backends
	embedding *embedding // nil when no embedder is configured

	queue  *jobQueue
	events *eventHub

	mu       sync.Mutex
	vaults   map[string]*vaultState
	active   *job                 // the pass running now, if any
	diskFull *index.DiskFullError // set while indexing is paused for disk space
	spaceLow chan struct{}        // wakes watchSpace when a pause begins
	retry    retries              // files to extract again when their extractor is healthy

	// startup is the start-up pass when ragd restarts on an index that has
	// documents: queries wait for it (awaitStartup). nil on a first start.
	startup *job

	// ln is the socket, set once it listens; the index calls
	// yieldToClients from its own goroutines, from its open on.
	ln   atomic.Pointer[ipc.Listener]
	busy int // work keeping the CPU busy (working); guarded by mu
}

type vaultState struct {
	cfg           config.Vault
	online        bool
	offline       string   // why the vault is offline
	offlineGen    int      // counts passes that found the vault gone
	offlineSeen   rootSeen // the vault's folder when it was last found gone
	lastReconcile *time.Time
	lastErr       string
	watching      string
	watcher       *watch.Watcher     // the live watcher, if any
	priming       *watch.Watcher     // a watcher of the root alone, whose folders the next whole-vault scan watches
	held          *ipc.HeldDeletions // removals held for confirmation
	unreadable    []watch.Skipped    // folders the last scan could not read
	special       []watch.Skipped    // special files the last scan passed over
}

// New checks the configuration and prepares a daemon; Run starts it.
func New(cfg *config.Config, log *slog.Logger) (*Daemon, error) {
	if cfg == nil {
		return nil, errors.New("daemon: nil config")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	d := &Daemon{cfg: cfg, log: log, vaults: make(map[string]*vaultState), queue: newJobQueue(), events: newEventHub(),
		spaceLow: make(chan struct{}, 1)}
	for _, v := range cfg.Vaults {
		d.vaults[v.Name] = &vaultState{cfg: v, online: true, watching: watchOff}
	}
	return d, nil
}

// Run opens the index, listens on the socket, reconciles every vault and
// serves until ctx is cancelled. It then stops accepting requests, lets the
// indexing pass commit the batch it holds, and closes the index. A clean
// shutdown returns nil.
func (d *Daemon) Run(ctx context.Context) error {
	dataDir := filepath.Join(d.cfg.Daemon.DataDir, "index")
	// Loading the index and the start-up pass run under a soft memory
	// limit (memory.go).
	restoreMemory := sync.OnceFunc(limitStartupMemory())
	defer restoreMemory()
	store, err := index.Open(index.Options{Dir: dataDir, Logger: d.log, BM25: bm25Of(d.cfg.Index), Fields: fieldsOf(d.cfg.Index),
		Yield: d.yieldToClients})
	if errors.Is(err, index.ErrLocked) {
		return fmt.Errorf("another ragd is already running on data dir %s (stop it first, or set daemon.data_dir)", d.cfg.Daemon.DataDir)
	}
	if err != nil {
		return err
	}
	defer func() {
		if err := store.Close(); err != nil {
			d.log.Error("close index", "err", err)
		}
	}()
	d.store = store
	d.ingest = ingest.New(store, ingest.Options{Logger: d.log})
	d.started = time.Now()
	mgr, err := d.startPlugins()
	if err != nil {
		return err
	}
	defer mgr.Close()
	if store.Rebuilt {
		d.log.Warn("index was rebuilt for a new format; reindexing every vault")
	}
	if err := d.dropUnconfiguredVaults(); err != nil {
		return err
	}

	ln, err := ipc.Listen(d.cfg.Daemon.Socket, d.log)
	if err != nil {
		if errors.Is(err, ipc.ErrInUse) {
			return fmt.Errorf("%w (is another ragd running with the same socket?)", err)
		}
		return err
	}
	d.ln.Store(ln)
	srv := &http.Server{
		Handler:           ipc.NewHandler(d, d.log),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
	}
	// Watch first, so nothing saved during the start-up pass is missed,
	// then queue that pass before serving, so no client ever sees an idle
	// daemon that has not reconciled yet. Only the roots are watched here:
	// the pass's scan watches every folder just before reading it (one walk
	// for both, after the socket listens), and the watcher watches those
	// the pass did not scan once it is over (watchVault).
	type started struct {
		w   *watch.Watcher
		err error
	}
	watchers := make(map[string]started)
	for name, vs := range d.vaults {
		if vs.cfg.Watch {
			w, err := watch.Open(vs.cfg.Path, vs.cfg, d.watchOptions(name))
			watchers[name] = started{w, err}
			vs.priming = w
		}
	}
	startup := &job{trigger: triggerStartup}
	if c, err := store.Counts(); err == nil {
		for _, vc := range c {
			if vc.Documents > 0 {
				// A restart: notes may have changed while ragd was down.
				d.startup = startup
				break
			}
		}
	}
	d.queue.push(startup)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	d.log.Info("ragd started", "socket", d.cfg.Daemon.Socket, "data_dir", d.cfg.Daemon.DataDir,
		"vaults", len(d.cfg.Vaults), "pid", os.Getpid(), "version", Version)

	workCtx, stopWork := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); mgr.Start(workCtx) }()
	wg.Add(1)
	go func() { defer wg.Done(); d.runJobs(workCtx) }()
	// Changes the watchers see while the start-up pass runs are queued
	// behind it.
	for name, st := range watchers {
		wg.Add(1)
		go func() { defer wg.Done(); d.watchVault(workCtx, name, st.w, st.err, startup.done) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); d.rescanPeriodically(workCtx) }()
	wg.Add(1)
	go func() { defer wg.Done(); d.watchSpace(workCtx) }()
	wg.Add(1)
	go func() { defer wg.Done(); d.retryExtractions(workCtx) }()
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-startup.done:
		case <-workCtx.Done():
		}
		// The graph's relations load when the pass no longer needs the
		// CPU (or as soon as a graph query or a write wants them).
		store.LoadGraph()
		select {
		case <-store.GraphLoaded():
		case <-workCtx.Done():
		}
		// The start-up pass is over and the graph loaded: the pass's
		// segments to disk, the memory both used back to the system, and
		// again once Badger has let go of its table builders.
		done := d.working()
		if workCtx.Err() == nil {
			if err := store.Settle(workCtx); err != nil {
				d.log.Warn("could not write the index segments after the start-up pass", "err", err)
			}
			store.TrimGraph()
		}
		restoreMemory()
		d.settleMemory()
		done()
		d.settleBuilders(workCtx)
	}()
	if d.embedding != nil {
		wg.Add(1)
		go func() { defer wg.Done(); d.embedding.run(workCtx) }()
	}

	var runErr error
	select {
	case <-ctx.Done():
		d.log.Info("shutting down: finishing the current batch")
	case err := <-serveErr:
		runErr = fmt.Errorf("serve: %w", err)
	}
	d.events.closeAll() // ends /v1/events streams so Shutdown need not wait
	stopWork()          // the running pass commits the batch it holds and ends
	d.queue.close()     // queued passes end unrun: a waiting reindex answers 503
	shutCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	if err := srv.Shutdown(shutCtx); err != nil {
		d.log.Warn("requests still running at shutdown were cut off", "err", err)
		srv.Close()
	}
	cancel()
	if runErr == nil {
		<-serveErr // Serve has returned ErrServerClosed
	}
	wg.Wait()
	d.log.Info("ragd stopped")
	return runErr
}

// dropUnconfiguredVaults removes the documents of vaults that were removed
// from (or renamed in) the configuration, so they stop appearing in results.
// A configured vault whose folder is missing is not affected.
func (d *Daemon) dropUnconfiguredVaults() error {
	names, err := d.store.Vaults()
	if err != nil {
		return err
	}
	for _, name := range names {
		if _, ok := d.vaults[name]; ok {
			continue
		}
		n, err := d.store.DropVault(name)
		if err != nil {
			return fmt.Errorf("drop documents of removed vault %q: %w", name, err)
		}
		d.log.Info("removed the index of a vault no longer in the configuration", "vault", name, "documents", n)
	}
	return nil
}

// chunkOptions are the chunker settings from the configuration.
func (d *Daemon) chunkOptions() chunk.Options {
	o := chunk.Options{ChildChars: d.cfg.Index.ChunkChars, ChildOverlap: d.cfg.Index.ChunkOverlap,
		ParentChars: d.cfg.Index.ParentChars}
	if o.ChildOverlap == 0 {
		o.ChildOverlap = -1 // a configured 0 means no overlap; chunk reads 0 as "default"
	}
	return o
}

// awaitStartup holds a query until the start-up pass has reconciled the
// vaults with disk, at most daemon.startup_wait: after a restart the index
// may still hold notes edited, renamed or deleted while ragd was down,
// which a pass over a small vault has caught up with by then. A larger
// vault's pass (a stat of every file, which costs reads of the disk when
// its inodes are not cached) goes on in the background, and the query is
// answered from the index as it is: a result whose file changed or
// vanished since it was indexed is flagged stale (query's stale check). A
// first start (empty index) answers at once with what is indexed so far.
func (d *Daemon) awaitStartup(ctx context.Context) {
	if d.startup == nil || d.cfg.Daemon.StartupWait <= 0 {
		return
	}
	t := time.NewTimer(d.cfg.Daemon.StartupWait)
	defer t.Stop()
	select {
	case <-d.startup.done:
	case <-ctx.Done():
	case <-t.C:
	}
}

// yieldToClients gives way to waiting clients (ipc.Listener.Yield): the
// indexing's workers and writer and the segment merges call it between
// steps, so that a request is read and answered before their next time
// slice rather than after it.
func (d *Daemon) yieldToClients() {
	if l := d.ln.Load(); l != nil {
		l.Yield()
	}
}

// working marks the start of work that keeps the CPU busy — a pass, the
// merges and collections after the start-up pass — and returns the
// function that marks its end. While any runs, the socket looks for
// requests itself (ipc.Listener.Polling), so that status and queries are
// answered within a time slice of the indexing, not after the runtime's
// network poller gets to them.
func (d *Daemon) working() (done func()) {
	d.mu.Lock()
	d.busy++
	if d.busy == 1 {
		d.ln.Load().Polling(true)
	}
	d.mu.Unlock()
	return sync.OnceFunc(func() {
		d.mu.Lock()
		d.busy--
		if d.busy == 0 {
			d.ln.Load().Polling(false)
		}
		d.mu.Unlock()
	})
}
