// Package builtin is the registry of the backends compiled into ragd.
// Each is served in its own process by `ragd plugin NAME` (Main), which
// the host starts with the ragd executable as the command.
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
	kind    string
	factory func() any
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
