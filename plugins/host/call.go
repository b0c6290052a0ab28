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
		err = fn(cctx, inst)
		// gRPC may return DeadlineExceeded (the plugin reset the stream at
		// the deadline it was sent) a moment before cctx's own timer fires:
		// the clock, not cctx.Err, says whether the call ran out of time.
		timedOut := err != nil && ctx.Err() == nil &&
			(errors.Is(cctx.Err(), context.DeadlineExceeded) || !time.Now().Before(deadline))
		cancel()
		switch {
		case err == nil:
			return nil
		case timedOut:
			reason := fmt.Sprintf("%s call ran past its %s timeout; process killed", op, p.spec.Timeout)
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
			return err
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
