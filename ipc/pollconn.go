package ipc

import (
	"errors"
	"net"
	"os"
	"sync"
	"time"
)

// Why a busy daemon's socket looks for requests itself.
//
// A connection waiting for a request is parked in Go's network poller. When
// the daemon indexes, every P is busy and none looks at the poller: the
// runtime's monitor thread polls it about every 10 ms and puts what it finds
// on the global run queue, which a busy P reads once in 61 scheduling
// rounds — behind every goroutine preempted meanwhile. A status request then
// waited 20–300 ms on the 50× scale vault (execution trace: the connection's
// goroutine runnable all that time, while the handler itself takes well
// under a millisecond). A read deadline is a timer instead, run by the P
// that armed it at its next scheduling round, and the goroutine a timer
// wakes runs next on that P. So while Polling is on, a waiting Accept or
// Read wakes every pollEvery and tries again: a request waits for the
// current time slice of one P, not for the global queue. Off (an idle
// daemon), they park in the poller as usual and cost nothing. A timer runs
// only when its P schedules, though, and the daemon's own long work looks
// for clients itself as well (Yield, yield.go).

// pollEvery is how often a waiting Accept or Read looks for work while the
// listener polls: at most this much is added to an answer, and a waiting
// connection costs a timer and a failed read this often.
const pollEvery = 2 * time.Millisecond

// Polling turns polling on or off (see above); the daemon turns it on while
// it indexes. Waiting Accepts and Reads follow at once.
func (l *Listener) Polling(on bool) {
	if l.polling.Swap(on) == on || !on {
		return // off: a waiting Accept or Read parks as usual once it wakes
	}
	// Wake the waiting Accept and Reads: they go on polling.
	l.amu.Lock()
	l.ul.SetDeadline(time.Now().Add(pollEvery))
	l.amu.Unlock()
	l.mu.Lock()
	conns := make([]*pollConn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		c.mu.Lock()
		c.arm()
		c.mu.Unlock()
	}
}

// wait is the deadline to arm for a wait that must end by dl (zero: none):
// dl, or sooner while polling.
func (l *Listener) wait(dl time.Time) time.Time {
	if !l.polling.Load() {
		return dl
	}
	next := time.Now().Add(pollEvery)
	if !dl.IsZero() && dl.Before(next) {
		return dl
	}
	return next
}

// acceptUnix accepts the next connection, polling while l polls.
func (l *Listener) acceptUnix() (*net.UnixConn, error) {
	for {
		l.amu.Lock()
		err := l.ul.SetDeadline(l.wait(time.Time{}))
		l.amu.Unlock()
		if err != nil {
			return nil, err
		}
		c, err := l.ul.AcceptUnix()
		if err == nil || !errors.Is(err, os.ErrDeadlineExceeded) {
			return c, err
		}
	}
}

// track registers a connection so that Polling reaches its waiting Read,
// until it is closed.
func (l *Listener) track(c *net.UnixConn) *pollConn {
	pc := &pollConn{jsonErrorConn: jsonErrorConn{c}, l: l, fd: rawFD(c)}
	l.mu.Lock()
	l.conns[pc] = struct{}{}
	l.mu.Unlock()
	return pc
}

// pollConn is an accepted connection whose Read polls while its listener
// does; the deadlines its user sets are kept and honoured as they are.
type pollConn struct {
	jsonErrorConn
	l   *Listener
	fd  int // for Yield's poll; the connection leaves l.conns before it is closed
	mu  sync.Mutex
	rdl time.Time // the read deadline set by the connection's user
}

// arm sets the read deadline for the next wait; the caller holds c.mu, so
// that an arm of Polling's comes wholly before or after this one.
func (c *pollConn) arm() error { return c.UnixConn.SetReadDeadline(c.l.wait(c.rdl)) }

func (c *pollConn) Read(p []byte) (int, error) {
	for {
		c.mu.Lock()
		dl := c.rdl
		if !dl.IsZero() && !time.Now().Before(dl) {
			c.mu.Unlock()
			return 0, os.ErrDeadlineExceeded
		}
		err := c.arm()
		c.mu.Unlock()
		if err != nil {
			return 0, err
		}
		n, err := c.UnixConn.Read(p)
		if n > 0 || !errors.Is(err, os.ErrDeadlineExceeded) {
			return n, err
		}
		// A poll's deadline, or the user's: the loop tells them apart.
	}
}

func (c *pollConn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rdl = t
	return c.arm()
}

func (c *pollConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.UnixConn.SetWriteDeadline(t)
}

func (c *pollConn) Close() error {
	c.l.mu.Lock()
	delete(c.l.conns, c)
	c.l.mu.Unlock()
	return c.UnixConn.Close()
}
