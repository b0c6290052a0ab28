package host

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragd/ragd/ipc"
)

// resetAfter is how long a process must have run for a crash to count as
// the first failure again (the backoff starts over from BackoffMin).
const resetAfter = 10 * time.Second

// exitPoll is how often a running plugin is checked for having exited.
const exitPoll = 100 * time.Millisecond

// readyWait is how far ahead a restart may be scheduled for a call to wait
// for it rather than fail at once with ErrUnavailable. Calls wait only for
// the first restart after a crash (or the first retry of a failed start),
// not for a plugin that keeps failing.
const readyWait = 2 * time.Second

// proc is one configured plugin: its supervisor, its current process (an
// instance) and its statistics.
type proc struct {
	spec Spec
	cfg  *Config
	log  *slog.Logger // the supervisor's messages
	// outLog logs the plugin's own output and its start-up: at debug level
	// while quiet, which it is after a failed start until one succeeds, so
	// that the same stderr at every retry is not repeated (the warning
	// about the failure quotes it once).
	outLog *slog.Logger
	quiet  atomic.Bool
	sem    chan struct{}
	stats  stats

	mu        sync.Mutex
	state     string
	inst      *instance // running instance, nil when none
	pid       int
	restarts  int
	lastErr   string
	nextTry   time.Time // when failed: the next start attempt
	info      any       // plugins.*Info of the last successful start
	infoMap   map[string]string
	changed   chan struct{} // closed and replaced on every change
	attempts  int           // start attempts finished
	startErrs int           // start attempts failed in a row
	launched  bool
	closing   bool
	waiting   int                // calls blocked in ready until the plugin is up
	stopStart context.CancelFunc // kills the process being started

	done   chan struct{} // closed when the manager closes
	exited chan struct{} // closed when the supervisor returns
}

func newProc(s Spec, cfg *Config) *proc {
	state := ipc.PluginDisabled
	if s.Lazy {
		state = ipc.PluginIdle
	}
	p := &proc{
		spec:    s,
		cfg:     cfg,
		log:     cfg.Logger.With("plugin", s.Name),
		sem:     make(chan struct{}, s.Concurrency),
		state:   state,
		changed: make(chan struct{}),
		done:    make(chan struct{}),
		exited:  make(chan struct{}),
	}
	p.outLog = slog.New(quietHandler{Handler: p.log.Handler(), quiet: &p.quiet})
	return p
}

// notify wakes everyone waiting on a change; p.mu must be held.
func (p *proc) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *proc) launch() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.launched || p.closing {
		return
	}
	p.launched = true
	p.state = ipc.PluginStarting
	p.notify()
	go p.supervise()
}

// waitFirstStart returns once the first start attempt has ended.
func (p *proc) waitFirstStart(ctx context.Context) {
	for {
		p.mu.Lock()
		if p.attempts > 0 || p.closing {
			p.mu.Unlock()
			return
		}
		ch := p.changed
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

func (p *proc) close() {
	p.mu.Lock()
	if !p.closing {
		p.closing = true
		close(p.done)
		if p.stopStart != nil {
			p.stopStart()
		}
	}
	launched := p.launched
	p.mu.Unlock()
	if launched {
		<-p.exited
	}
	p.mu.Lock()
	p.state = ipc.PluginDisabled
	p.inst = nil
	p.pid = 0
	p.notify()
	p.mu.Unlock()
}

func (p *proc) isClosing() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closing
}

// backoff is the delay before the next start after n failures in a row.
func (p *proc) backoff(n int) time.Duration {
	d := p.cfg.BackoffMin
	for i := 1; i < n && d < p.cfg.BackoffMax; i++ {
		d *= 2
	}
	return min(d, p.cfg.BackoffMax)
}

// sleep waits d, or returns false when the manager closes first.
func (p *proc) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-p.done:
		return false
	}
}

// supervise starts the plugin, watches it, and restarts it with backoff
// until the manager closes.
func (p *proc) supervise() {
	defer close(p.exited)
	failures := 0
	// A plugin that cannot start (a missing model, a bad option) fails the
	// same way at every retry: the first failure is logged as a warning,
	// the same failure again only at debug level, with its count.
	lastFailure, repeats := "", 0
	for attempt := 0; ; attempt++ {
		p.mu.Lock()
		if attempt > 0 {
			p.restarts++
		}
		p.state = ipc.PluginStarting
		p.notify()
		p.mu.Unlock()

		inst, err := p.start()
		if p.isClosing() {
			if inst != nil {
				inst.stop(true)
			}
			return
		}
		if err != nil {
			failures++
			d := p.backoff(failures)
			p.setFailed(err.Error(), d, true)
			p.quiet.Store(true)
			if msg := err.Error(); msg != lastFailure {
				lastFailure, repeats = msg, 1
				p.log.Warn("plugin failed to start; retrying with backoff (the same failure again is logged at debug level)",
					"error", msg, "retry_in", d.String())
			} else {
				repeats++
				p.log.Debug("plugin failed to start again", "attempts", repeats, "retry_in", d.String())
			}
			if !p.sleep(d) {
				return
			}
			continue
		}
		p.setRunning(inst)
		p.quiet.Store(false)
		if lastFailure != "" {
			p.log.Info("plugin running after failing to start", "pid", inst.pid, "failed_attempts", repeats)
			lastFailure = ""
		} else if inst.inProcess {
			p.log.Info("plugin running in ragd's process")
		} else {
			p.log.Info("plugin running", "pid", inst.pid)
		}

		reason, deliberate := p.watch(inst)
		if reason == "" { // closing
			inst.stop(true)
			// "exit status 0" after a graceful shutdown, "signal: killed"
			// when the plugin had to be killed.
			p.log.Debug("plugin stopped", "pid", inst.pid, "exit", inst.exitStatus())
			return
		}
		inst.stop(false)
		if !deliberate && !inst.inProcess {
			if st := inst.exitStatus(); st != "" {
				reason += " (" + st + ")"
			}
			if tail := inst.out.tail(); tail != "" {
				reason += ": " + tail
			}
		}
		if time.Since(inst.started) >= resetAfter {
			failures = 0
		}
		failures++
		d := p.backoff(failures)
		p.setFailed(reason, d, false)
		p.log.Warn("plugin stopped; restarting", "reason", reason, "pid", inst.pid, "restart_in", d.String())
		if !p.sleep(d) {
			return
		}
	}
}

// start runs one start attempt; close() can abort it.
func (p *proc) start() (*instance, error) {
	ctx, kill := context.WithCancel(context.Background())
	p.mu.Lock()
	if p.closing {
		p.mu.Unlock()
		kill()
		return nil, ErrClosed
	}
	p.stopStart = kill
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.stopStart = nil
		p.mu.Unlock()
	}()
	inst, info, infoMap, err := startInstance(ctx, kill, p.spec, p.cfg, p.outLog)
	if err != nil {
		kill()
		return nil, err
	}
	p.mu.Lock()
	p.info, p.infoMap = info, infoMap
	p.mu.Unlock()
	return inst, nil
}

func (p *proc) setRunning(inst *instance) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inst = inst
	p.pid = inst.pid
	p.state = ipc.PluginRunning
	p.attempts++
	p.startErrs = 0
	p.notify()
}

func (p *proc) setFailed(reason string, retryIn time.Duration, startErr bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if startErr {
		p.startErrs++
	}
	p.inst = nil
	p.pid = 0
	p.state = ipc.PluginFailed
	p.lastErr = reason
	p.nextTry = time.Now().Add(retryIn)
	p.attempts++
	p.notify()
}

// watch blocks until inst must go: it returns why, or "" when the manager
// is closing, and whether the host is killing a live process.
func (p *proc) watch(inst *instance) (reason string, deliberate bool) {
	if inst.inProcess { // no process to poll or health-check
		select {
		case <-p.done:
			return "", false
		case <-inst.broken:
			return inst.reason, inst.deliberate
		}
	}
	poll := time.NewTicker(exitPoll)
	defer poll.Stop()
	health := time.NewTicker(p.cfg.HealthInterval)
	defer health.Stop()
	for {
		select {
		case <-p.done:
			return "", false
		case <-inst.broken:
			return inst.reason, inst.deliberate
		case <-poll.C:
			if inst.client.Exited() {
				return "plugin process exited", false
			}
		case <-health.C:
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			err := inst.health(ctx)
			cancel()
			if err != nil {
				if inst.client.Exited() {
					return "plugin process exited", false
				}
				return "health check failed: " + err.Error(), true
			}
		}
	}
}

// breakInstance takes inst out of service (when a call timed out or lost
// its connection): it kills the process and lets the supervisor restart
// it. Only the first report about an instance counts.
func (p *proc) breakInstance(inst *instance, reason string, deliberate bool) {
	if !inst.markBroken(reason, deliberate) {
		return
	}
	p.mu.Lock()
	if p.inst == inst {
		p.inst = nil
		p.pid = 0
		p.state = ipc.PluginFailed
		p.lastErr = reason
		p.nextTry = time.Now()
		p.notify()
	}
	p.mu.Unlock()
}

// ready returns the running instance, waiting while a start or an imminent
// restart is under way.
func (p *proc) ready(ctx context.Context) (*instance, error) {
	for {
		p.mu.Lock()
		if p.closing {
			p.mu.Unlock()
			return nil, ErrClosed
		}
		if p.inst != nil {
			inst := p.inst
			p.mu.Unlock()
			return inst, nil
		}
		switch {
		case p.state == ipc.PluginStarting:
		case p.state == ipc.PluginFailed && p.startErrs <= 1 && (time.Until(p.nextTry) <= readyWait || waitsForRestart(ctx)):
			// Restarting after a crash or a timeout: worth waiting for.
		case !p.launched && p.spec.Lazy:
			p.mu.Unlock()
			p.launch()
			continue
		case !p.launched:
			// Manager.Start has not run yet (it may be on its way).
		default:
			err := &unavailableError{state: p.state, lastErr: p.lastErr}
			p.mu.Unlock()
			return nil, err
		}
		ch := p.changed
		p.waiting++
		p.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		p.mu.Lock()
		p.waiting--
		p.mu.Unlock()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

func (p *proc) status() ipc.PluginStatus {
	p.mu.Lock()
	st := ipc.PluginStatus{
		Name:      p.spec.Name,
		Kind:      p.spec.Kind,
		Command:   p.spec.Command,
		Builtin:   p.spec.Builtin,
		InProcess: p.spec.InProcess != nil,
		State:     p.state,
		PID:       p.pid,
		Restarts:  p.restarts,
		LastError: p.lastErr,
	}
	if len(p.infoMap) > 0 {
		st.Info = make(map[string]string, len(p.infoMap))
		for k, v := range p.infoMap {
			st.Info[k] = v
		}
	}
	p.mu.Unlock()
	st.Calls, st.Errors, st.P50MS, st.P95MS = p.stats.snapshot()
	return st
}

// unavailableError is ErrUnavailable with the reason.
type unavailableError struct {
	state, lastErr string
}

func (e *unavailableError) Error() string {
	if e.lastErr == "" {
		return ErrUnavailable.Error() + " (" + e.state + ")"
	}
	return ErrUnavailable.Error() + " (" + e.state + "): " + e.lastErr
}

func (e *unavailableError) Unwrap() error { return ErrUnavailable }
