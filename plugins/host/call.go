package host

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// call runs fn on the plugin's running instance under the concurrency
// limit and the per-call timeout. A call past the timeout kills the
// process (which the supervisor restarts) and fails with ErrTimeout; a
// call that failed because the process died is retried once on the
// restarted process.
func (p *proc) call(ctx context.Context, op string, fn func(ctx context.Context, inst *instance) error) error {
	select {
	case p.sem <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("plugin %s: %s: waiting for a free slot: %w", p.spec.Name, op, ctx.Err())
	}
	defer func() { <-p.sem }()

	start := time.Now()
	err := p.attempt(ctx, op, fn)
	p.stats.record(time.Since(start), err)
	if err != nil {
		return fmt.Errorf("plugin %s: %w", p.spec.Name, err)
	}
	return nil
}

func (p *proc) attempt(ctx context.Context, op string, fn func(ctx context.Context, inst *instance) error) error {
	for try := 0; ; try++ {
		inst, err := p.ready(ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		deadline := time.Now().Add(p.spec.Timeout)
		cctx, cancel := context.WithDeadline(ctx, deadline)
		err = p.invoke(cctx, inst, fn)
		// gRPC may return DeadlineExceeded (the plugin reset the stream at
		// the deadline it was sent) a moment before cctx's own timer fires:
		// the clock, not cctx.Err, says whether the call ran out of time.
		timedOut := err != nil && ctx.Err() == nil &&
			(errors.Is(cctx.Err(), context.DeadlineExceeded) || !time.Now().Before(deadline))
		cancel()
		switch {
		case err == nil:
			return nil
		case errors.Is(err, errPanicked): // the instance is already being replaced
			return fmt.Errorf("%s: %w", op, err)
		case timedOut:
			reason := fmt.Sprintf("%s call ran past its %s timeout; process killed", op, p.spec.Timeout)
			if inst.inProcess {
				reason = fmt.Sprintf("%s call ran past its %s timeout; implementation replaced", op, p.spec.Timeout)
			}
			p.breakInstance(inst, reason, true)
			return fmt.Errorf("%s: %w after %s (the plugin is being restarted)", op, ErrTimeout, p.spec.Timeout)
		case ctx.Err() != nil:
			return err
		case processLost(ctx, inst, err):
			p.breakInstance(inst, "connection lost during a call: "+err.Error(), false)
			if try == 0 {
				p.log.Warn("plugin died during a call; retrying on the restarted process", "op", op, "error", err.Error())
				continue
			}
			// Died again: says nothing about the input, try later.
			return fmt.Errorf("%s: %w: the process died during the call twice: %w", op, ErrUnavailable, err)
		default:
			return err
		}
	}
}

// processLost says whether err means the plugin process (or the
// connection to it) is gone rather than that the call failed. A plugin may
// itself answer UNAVAILABLE (a service it relies on is down): then its
// health service still answers.
func processLost(ctx context.Context, inst *instance, err error) bool {
	if inst.inProcess {
		return false
	}
	if inst.client.Exited() {
		return true
	}
	if status.Code(err) != codes.Unavailable {
		return false
	}
	hctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return inst.health(hctx) != nil
}

// Transient reports whether err says nothing about the input of the call
// that returned it: the plugin timed out, died, was restarting or shutting
// down, or the call was cancelled. Such a call is worth repeating later;
// an error the plugin itself returned (a file it cannot parse) is not.
func Transient(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrTimeout) || errors.Is(err, ErrUnavailable) || errors.Is(err, ErrClosed) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	switch status.Code(unwrapStatus(err)) {
	case codes.Unavailable, codes.Canceled, codes.DeadlineExceeded, codes.Aborted, codes.ResourceExhausted:
		return true
	}
	return false
}

// unwrapStatus finds the gRPC status error wrapped in err, if any.
func unwrapStatus(err error) error {
	for e := err; e != nil; e = errors.Unwrap(e) {
		if _, ok := status.FromError(e); ok {
			return e
		}
	}
	return err
}

type waitKey struct{}

// WaitForRestart returns a context under which calls wait for a plugin that
// is restarting after a crash or a timeout, however long its backoff,
// instead of failing at once with ErrUnavailable (a plugin that keeps
// failing to start still fails at once). For work a user waits on, such as
// a reindex they asked for.
func WaitForRestart(ctx context.Context) context.Context {
	return context.WithValue(ctx, waitKey{}, true)
}

func waitsForRestart(ctx context.Context) bool {
	v, _ := ctx.Value(waitKey{}).(bool)
	return v
}
