package host

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/plugins"
)

// Config tunes a Manager; zero values take the defaults.
type Config struct {
	// Logger receives the manager's events and every plugin's log lines,
	// tagged plugin=NAME (default: discard).
	Logger *slog.Logger
	// StartTimeout bounds one start: process, handshake, Configure, Info.
	StartTimeout time.Duration
	// HealthInterval is how often a running plugin's gRPC health service
	// is checked.
	HealthInterval time.Duration
	// BackoffMin and BackoffMax bound the delay before a restart; it
	// doubles with each failure in a row.
	BackoffMin, BackoffMax time.Duration

	// noPdeathsig leaves out the parent-death signal (tests use it to
	// check that plugins also notice on their own that the host died).
	noPdeathsig bool
}

// Manager starts, supervises and stops the configured plugins.
type Manager struct {
	cfg   Config
	log   *slog.Logger
	procs map[string]*proc
	order []string // spec order, for Status

	mu      sync.Mutex
	started bool
	closed  bool
}

// New validates specs and returns a Manager that has started nothing yet.
func New(specs []Spec, cfg Config) (*Manager, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.HealthInterval <= 0 {
		cfg.HealthInterval = DefaultHealthInterval
	}
	if cfg.BackoffMin <= 0 {
		cfg.BackoffMin = DefaultBackoffMin
	}
	if cfg.BackoffMax < cfg.BackoffMin {
		cfg.BackoffMax = max(DefaultBackoffMax, cfg.BackoffMin)
	}
	m := &Manager{cfg: cfg, log: cfg.Logger, procs: map[string]*proc{}}
	for _, s := range specs {
		s, err := s.withDefaults()
		if err != nil {
			return nil, err
		}
		if _, dup := m.procs[s.Name]; dup {
			return nil, fmt.Errorf("plugin %q configured twice", s.Name)
		}
		m.procs[s.Name] = newProc(s, &m.cfg)
		m.order = append(m.order, s.Name)
	}
	return m, nil
}

// Start starts every plugin and waits until each has either come up or
// failed its first start (or ctx ends). A plugin that failed is retried in
// the background with backoff; Status tells which are running. Start
// itself only fails when the manager was closed or already started.
func (m *Manager) Start(ctx context.Context) error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return ErrClosed
	}
	if m.started {
		m.mu.Unlock()
		return fmt.Errorf("plugin manager already started")
	}
	m.started = true
	m.mu.Unlock()

	var wg sync.WaitGroup
	for _, name := range m.order {
		p := m.procs[name]
		if p.spec.Lazy {
			continue // started by its first call
		}
		p.launch()
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.waitFirstStart(ctx)
		}()
	}
	wg.Wait()
	return nil
}

// Names returns the configured plugins of one kind ("" for all), in
// configuration order.
func (m *Manager) Names(kind string) []string {
	var out []string
	for _, n := range m.order {
		if kind == "" || m.procs[n].spec.Kind == kind {
			out = append(out, n)
		}
	}
	return out
}

func (m *Manager) lookup(name, kind string) (*proc, error) {
	p, ok := m.procs[name]
	if !ok || p.spec.Kind != kind {
		return nil, fmt.Errorf("%w: %s %q", ErrUnknownPlugin, kind, name)
	}
	return p, nil
}

// Embedder returns the handle of the embedder plugin name.
func (m *Manager) Embedder(name string) (plugins.Embedder, error) {
	p, err := m.lookup(name, plugins.KindEmbedder)
	if err != nil {
		return nil, err
	}
	return &embedderHandle{p: p}, nil
}

// Extractor returns the handle of the extractor plugin name.
func (m *Manager) Extractor(name string) (plugins.Extractor, error) {
	p, err := m.lookup(name, plugins.KindExtractor)
	if err != nil {
		return nil, err
	}
	return &extractorHandle{p: p}, nil
}

// Reranker returns the handle of the reranker plugin name.
func (m *Manager) Reranker(name string) (plugins.Reranker, error) {
	p, err := m.lookup(name, plugins.KindReranker)
	if err != nil {
		return nil, err
	}
	return &rerankerHandle{p: p}, nil
}

// Status describes every plugin, in configuration order.
func (m *Manager) Status() []ipc.PluginStatus {
	out := make([]ipc.PluginStatus, 0, len(m.order))
	for _, n := range m.order {
		out = append(out, m.procs[n].status())
	}
	return out
}

// Close stops every plugin (a graceful shutdown, then SIGKILL after two
// seconds) and waits for their supervisors. Calls in flight fail.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range m.procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.close()
		}()
	}
	wg.Wait()
	return nil
}

// sortedKeys returns m's keys in order (for deterministic log attributes).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
