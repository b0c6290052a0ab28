package host

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/ragd/ragd/plugins"
)

// In-process backends. A built-in whose work is cheap and whose input is
// trusted or tightly bounded (the heuristic reranker reads only the
// metadata ragd itself sends) may be served in the daemon's own process:
// its Spec.InProcess factory makes the implementation, which the handles
// call directly — no subprocess, no gRPC round trip. Everything else about
// a plugin stays: the concurrency limit, the per-call timeout (through the
// call's context: there is no process to kill, so the implementation must
// return when its context ends), call counts and latencies in Status, and
// a restart — a fresh implementation — after a call that timed out or
// panicked. A panic is recovered: it fails its own call only (with
// errPanicked, not retried: a panic says something about the input, and
// calls in flight on the old implementation finish), never the daemon.

// errPanicked wraps the value an in-process implementation panicked with.
var errPanicked = errors.New("in-process plugin panicked")

// startInProcess makes and configures an in-process instance of spec.
func startInProcess(ctx context.Context, kill context.CancelFunc, spec Spec, cfg *Config) (inst *instance, info any, infoMap map[string]string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plugin start-up failed: %w: %v", errPanicked, r)
		}
	}()
	impl := spec.InProcess()
	if impl == nil {
		return nil, nil, nil, errors.New("plugin start-up failed: the in-process built-in's factory returned nil")
	}
	cctx, cancel := context.WithTimeout(ctx, min(cfg.StartTimeout, spec.Timeout))
	defer cancel()
	if c, ok := impl.(plugins.Configurable); ok {
		if err := c.Configure(cctx, spec.Options); err != nil {
			return nil, nil, nil, fmt.Errorf("plugin start-up failed: %w", err)
		}
	}
	if info, infoMap, err = fetchInfo(cctx, impl); err != nil {
		return nil, nil, nil, fmt.Errorf("plugin start-up failed: %w", err)
	}
	inst = &instance{raw: impl, inProcess: true, kill: kill, broken: make(chan struct{}), started: time.Now()}
	return inst, info, infoMap, nil
}

// invoke runs fn on inst. For an in-process instance a panic becomes an
// error wrapping errPanicked, logged with its stack, and retires inst:
// the state of an implementation that panicked cannot be trusted.
func (p *proc) invoke(ctx context.Context, inst *instance, fn func(ctx context.Context, inst *instance) error) (err error) {
	if !inst.inProcess {
		return fn(ctx, inst)
	}
	defer func() {
		if r := recover(); r != nil {
			p.log.Error("in-process plugin panicked; replacing it", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			p.breakInstance(inst, fmt.Sprintf("panicked: %v", r), true)
			err = fmt.Errorf("%w: %v", errPanicked, r)
		}
	}()
	return fn(ctx, inst)
}
