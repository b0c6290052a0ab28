// Package builtin is the registry of the backends compiled into ragd.
// Each is served in its own process by `ragd plugin NAME` (Main), which
// the host starts with the ragd executable as the command — except those
// registered with RegisterInProcess, which the daemon calls in its own
// process unless configured otherwise.
package builtin

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/ragd/ragd/plugins"
)

type entry struct {
	kind      string
	factory   func() any
	inProcess bool
}

var (
	mu       sync.RWMutex
	registry = map[string]entry{}
)

// Register makes a built-in backend available as NAME. kind is
// plugins.KindEmbedder, KindExtractor or KindReranker; factory returns a
// new implementation of that kind's interface (it runs in the plugin
// process only). Register panics on a duplicate name or an unknown kind:
// call it from init.
func Register(name, kind string, factory func() any) {
	if name == "" || factory == nil {
		panic("builtin.Register: empty name or nil factory")
	}
	switch kind {
	case plugins.KindEmbedder, plugins.KindExtractor, plugins.KindReranker:
	default:
		panic(fmt.Sprintf("builtin.Register(%q): unknown kind %q", name, kind))
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[name]; dup {
		panic(fmt.Sprintf("builtin.Register: %q registered twice", name))
	}
	registry[name] = entry{kind: kind, factory: factory}
}

// RegisterInProcess is Register for a built-in that the daemon calls in
// its own process (see InProcess) rather than through `ragd plugin NAME`
// (which still serves it, for a configuration that asks for a
// subprocess): one whose work is cheap and whose input is trusted or
// tightly bounded, so that neither a crash nor a memory spike of a
// separate process is worth a round trip per call. Never one that parses
// untrusted files. Its implementation must be safe for concurrent use,
// return when a call's context ends, neither modify nor keep what it is
// passed, and hold nothing that needs releasing (host.Spec.InProcess).
func RegisterInProcess(name, kind string, factory func() any) {
	Register(name, kind, factory)
	mu.Lock()
	defer mu.Unlock()
	e := registry[name]
	e.inProcess = true
	registry[name] = e
}

// InProcess returns the factory of the built-in NAME when the daemon
// calls it in its own process, else nil.
func InProcess(name string) func() any {
	mu.RLock()
	defer mu.RUnlock()
	if e := registry[name]; e.inProcess {
		return e.factory
	}
	return nil
}

// Lookup returns the kind and factory of the built-in NAME.
func Lookup(name string) (kind string, factory func() any, ok bool) {
	mu.RLock()
	defer mu.RUnlock()
	e, ok := registry[name]
	return e.kind, e.factory, ok
}

// Names returns the registered built-ins, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Main is `ragd plugin NAME`: it serves the built-in NAME until the host
// shuts it down. It fails without serving when NAME is unknown or the
// process was not started by a ragd host.
func Main(name string) error {
	kind, factory, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("unknown built-in plugin %q (built in: %s)", name, strings.Join(Names(), ", "))
	}
	if !plugins.IsPluginProcess() {
		return fmt.Errorf("`ragd plugin %s` is started by the ragd daemon as a plugin process, not by hand", name)
	}
	impl := factory()
	if impl == nil {
		return fmt.Errorf("built-in plugin %q: factory returned nil", name)
	}
	plugins.Serve(kind, impl)
	return nil
}

// OptionChecker is implemented by built-ins whose Configure is costly (it
// loads a model): CheckOptions validates the options and that what the
// backend needs is installed, without loading it.
type OptionChecker interface {
	CheckOptions(opts plugins.Options) error
}

// Check validates opts for the built-in NAME as it would be configured at
// start, in this process and without serving: through CheckOptions when
// the backend has it, else through Configure on a fresh instance.
func Check(name string, opts plugins.Options) error {
	_, factory, ok := Lookup(name)
	if !ok {
		return fmt.Errorf("unknown built-in plugin %q", name)
	}
	switch impl := factory().(type) {
	case OptionChecker:
		return impl.CheckOptions(opts)
	case plugins.Configurable:
		return impl.Configure(context.Background(), opts)
	}
	return nil
}
