// Package host starts ragd's backend plugins as go-plugin subprocesses
// (gRPC), supervises them and hands the daemon handles that implement
// plugins.Embedder, plugins.Extractor and plugins.Reranker. A built-in
// whose Spec has an InProcess factory is called in the daemon's own
// process instead, through the same handles (inprocess.go).
//
// Every call through a handle is bounded by the plugin's timeout (past it
// the process is killed and restarted, and the call fails with
// ErrTimeout) and by its concurrency limit. A process that dies is
// restarted with exponential backoff, and a call that failed because its
// process died is retried once on the restarted process. Plugin log lines
// (hclog JSON or plain text on stderr) go to the manager's slog logger
// with the attribute plugin=NAME.
package host

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ragd/ragd/plugins"
)

// Errors returned by handle calls (wrapped: test with errors.Is).
var (
	// ErrTimeout: the call ran past the plugin's timeout; the process was
	// killed and is being restarted.
	ErrTimeout = errors.New("plugin call timed out")
	// ErrUnavailable: the plugin is not running (failed to start and is
	// waiting to retry, or disabled).
	ErrUnavailable = errors.New("plugin unavailable")
	// ErrClosed: the manager was closed.
	ErrClosed = errors.New("plugin manager closed")
	// ErrUnknownPlugin: no plugin of that name and kind is configured.
	ErrUnknownPlugin = errors.New("no such plugin")
)

// Spec configures one plugin (a [[plugin]] table of ragd.toml).
type Spec struct {
	Name    string // unique; used in logs, status and lookups
	Kind    string // plugins.KindEmbedder, KindExtractor or KindReranker
	Command string // executable; for a built-in, "" means the ragd executable
	Args    []string
	Env     map[string]string // added to the daemon's environment
	Options plugins.Options   // sent to the plugin's Configure, as JSON
	// Timeout bounds every call (default 60 s). Past it the process is
	// killed and restarted.
	Timeout time.Duration
	// Concurrency is the most calls in flight at once (default 2); more
	// wait their turn.
	Concurrency int
	// Builtin marks a backend compiled into ragd, served by
	// `ragd plugin NAME`: an empty Command becomes os.Executable() and
	// empty Args become ["plugin", Name].
	Builtin bool
	// DisableAutoMTLS turns off go-plugin's automatic mutual TLS on the
	// plugin connection. Needed for plugins not written with go-plugin
	// (Node, Python, ...) that do not implement it; the connection is then
	// a plain Unix socket, which only the user can reach when the plugin
	// creates it in a private directory.
	DisableAutoMTLS bool
	// Lazy plugins are not started by Manager.Start but by their first
	// call, so a default extractor nobody needs (no PDFs in the vaults)
	// costs nothing. Until then their state is "idle".
	Lazy bool
	// InProcess, for a built-in, makes the implementation the host then
	// calls in its own process (inprocess.go) instead of starting a
	// subprocess; Command and Args are unused. The implementation must be
	// safe for concurrent use, return when a call's context ends, neither
	// modify nor keep what it is passed, and hold nothing that needs
	// releasing.
	InProcess func() any
}

// Defaults.
const (
	DefaultTimeout        = 60 * time.Second
	DefaultConcurrency    = 2
	DefaultStartTimeout   = 30 * time.Second
	DefaultHealthInterval = 10 * time.Second
	DefaultBackoffMin     = 100 * time.Millisecond
	DefaultBackoffMax     = 30 * time.Second
)

// withDefaults validates s and fills in its defaults.
func (s Spec) withDefaults() (Spec, error) {
	if s.Name == "" {
		return s, errors.New("plugin without a name")
	}
	switch s.Kind {
	case plugins.KindEmbedder, plugins.KindExtractor, plugins.KindReranker:
	default:
		return s, fmt.Errorf("plugin %q: unknown kind %q (want %s, %s or %s)", s.Name, s.Kind,
			plugins.KindEmbedder, plugins.KindExtractor, plugins.KindReranker)
	}
	if s.InProcess != nil {
		if !s.Builtin {
			return s, fmt.Errorf("plugin %q: only a built-in runs in-process", s.Name)
		}
		s.Command, s.Args = "", nil
	} else if s.Builtin {
		if s.Command == "" {
			exe, err := os.Executable()
			if err != nil {
				return s, fmt.Errorf("plugin %q: locating the ragd executable: %w", s.Name, err)
			}
			s.Command = exe
		}
		if len(s.Args) == 0 {
			s.Args = []string{"plugin", s.Name}
		}
	}
	if s.Command == "" && s.InProcess == nil {
		return s, fmt.Errorf("plugin %q: no command", s.Name)
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	if s.Concurrency <= 0 {
		s.Concurrency = DefaultConcurrency
	}
	return s, nil
}
