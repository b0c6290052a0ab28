//go:build unix

package ipc

import "golang.org/x/sys/unix"

// pollBufs are pollUnread's, kept from one call to the next.
type pollBufs struct {
	fds   []unix.PollFd
	conns []*pollConn // conns[i] polls fds[i]; nil: the listening socket
}

// pollUnread asks the kernel, without waiting, whether a connection waits
// to be accepted or an accepted one has bytes unread, and wakes the
// goroutines that will take them (wakeAccept, wake). Holding mu keeps each
// descriptor open while it is polled: a connection leaves conns before it
// is closed, and Close marks the listener's closed first.
func (l *Listener) pollUnread() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	ys := &l.ys
	fds, conns := ys.fds[:0], ys.conns[:0]
	if l.lfd >= 0 {
		fds = append(fds, unix.PollFd{Fd: int32(l.lfd), Events: unix.POLLIN})
		conns = append(conns, nil)
	}
	for c := range l.conns {
		if c.fd >= 0 {
			fds = append(fds, unix.PollFd{Fd: int32(c.fd), Events: unix.POLLIN})
			conns = append(conns, c)
		}
	}
	ys.fds, ys.conns = fds, conns
	n, err := unix.Poll(fds, 0)
	if err != nil || n == 0 {
		return false
	}
	for i, f := range fds {
		switch {
		case f.Revents == 0:
		case conns[i] == nil:
			l.wakeAccept()
		default:
			conns[i].wake()
		}
	}
	return true
}
