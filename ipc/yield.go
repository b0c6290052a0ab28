package ipc

import (
	"sync/atomic"
	"syscall"
	"time"
)

// Why the daemon's background work gives way to clients (Yield).
//
// Polling (pollconn.go) wakes a waiting Accept or Read every pollEvery by a
// timer, but a timer is run by its P only at that P's next scheduling round:
// while a file worker, a segment merge and Badger's writes each hold a P for
// a 10–20 ms time slice, the connection's goroutine stayed blocked for up to
// 37 ms past its deadline and then waited in a run queue (execution trace
// of the 50× scale vault's cold index, status polled every 20 ms: 10–19
// answers a run over 30 ms, the slowest 50–94 ms). The work that fills the
// Ps is ragd's own, so it can look for clients itself: the file workers
// before each file, the writer before each commit and the segment writers
// every 4,096 postings, terms and notes call Yield. Yield asks the kernel
// (poll(2) with no wait, at most every yieldCheckEvery) whether a
// connection or a request has arrived that the server has not read yet;
// if one has, it sets an expired deadline on the waiting Accept or Read,
// which makes the runtime ready that goroutine on the caller's own P, and
// sleeps in short steps while any stays unread — so the P runs the
// server's goroutine next. It returns once nothing waits or after
// maxYield, whichever comes first; a request being answered no longer
// counts (a long reindex or event stream must not hold the indexing back).

const (
	// yieldCheckEvery is how often Yield asks the kernel at most; calls
	// between answer from the last look.
	yieldCheckEvery = time.Millisecond
	// yieldStep is how long Yield sleeps between looks while a client
	// waits.
	yieldStep = 200 * time.Microsecond
	// maxYield bounds one Yield: a client that sends and never reads, or
	// a server goroutine that cannot get to a request, holds the caller
	// back no longer than this.
	maxYield = 10 * time.Millisecond
)

// Yield gives way to waiting clients (see above): it wakes the goroutines
// that will read what has arrived so that they run next on the caller's P,
// and returns when nothing is left unread or after maxYield. Cheap when
// no client waits; safe for concurrent use and after Close.
func (l *Listener) Yield() {
	var until time.Time
	for l.waiting() {
		now := time.Now()
		switch {
		case until.IsZero():
			until = now.Add(maxYield)
		case now.After(until):
			return
		}
		time.Sleep(yieldStep)
	}
}

// yieldState is Listener.Yield's: when it last asked the kernel and what it
// heard, and the buffers of its poll (pollBufs; guarded by the listener's
// mu).
type yieldState struct {
	checked atomic.Int64 // since yieldEpoch, ns; 0 = never
	unread  atomic.Bool
	pollBufs
}

// yieldEpoch is what the times of yieldState are counted from (a
// monotonic clock's reading).
var yieldEpoch = time.Now()

// waiting reports whether a client's connection or request is unread,
// asking the kernel at most every yieldCheckEvery.
func (l *Listener) waiting() bool {
	now := time.Since(yieldEpoch)
	if last := time.Duration(l.ys.checked.Load()); last != 0 && now-last < yieldCheckEvery {
		return l.ys.unread.Load()
	}
	l.ys.checked.Store(int64(max(now, 1)))
	unread := l.pollUnread()
	l.ys.unread.Store(unread)
	return unread
}

// rawFD is the descriptor of c, or -1.
func rawFD(c syscall.Conn) int {
	rc, err := c.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	if rc.Control(func(f uintptr) { fd = int(f) }) != nil {
		return -1
	}
	return fd
}

// expired is a deadline long past: set on a waiting Accept or Read, it
// makes the runtime ready the goroutine on the P of the goroutine setting
// it (the loops in acceptUnix and pollConn.Read then wait again, and find
// what has arrived).
var expired = time.Unix(1, 0)

// wakeAccept readies the goroutine waiting in Accept.
func (l *Listener) wakeAccept() {
	l.amu.Lock()
	l.ul.SetDeadline(expired)
	l.amu.Unlock()
}

// wake readies the goroutine waiting in c's Read.
func (c *pollConn) wake() {
	c.mu.Lock()
	c.UnixConn.SetReadDeadline(expired)
	c.mu.Unlock()
}
