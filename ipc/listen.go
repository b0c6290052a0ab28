package ipc

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// ErrInUse is returned by Listen when a live daemon already answers on the
// socket.
var ErrInUse = errors.New("another ragd is already listening")

// Listen creates the Unix socket at path, in a directory of mode 0700 (made
// if missing), with mode 0600. It refuses (*UnsafeSocketError) a directory
// that another user owns or that others can write, and a socket file that
// is not the user's: another user could otherwise replace the socket with a
// listener of their own. A socket file left by a crashed daemon is detected
// by dialling it and removed only if nothing answers; a live one yields
// ErrInUse. Every accepted connection's peer credentials are checked and
// connections from other users are refused (logged and closed).
func Listen(path string, log *slog.Logger) (*Listener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("ipc: socket dir: %w", err)
	}
	uid := os.Getuid()
	if err := checkDir(dir, uid); err != nil {
		return nil, fmt.Errorf("ipc: %w", err)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("ipc: %s exists and is not a socket; refusing to remove it", path)
		}
		if err := checkSocketFile(path, uid); err != nil {
			return nil, fmt.Errorf("ipc: %w", err)
		}
		c, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			c.Close()
			return nil, fmt.Errorf("%w on %s", ErrInUse, path)
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("ipc: remove stale socket: %w", err)
		}
		log.Info("removed stale socket from an earlier run", "socket", path)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("ipc: listen on %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("ipc: chmod socket: %w", err)
	}
	ul := ln.(*net.UnixListener)
	ul.SetUnlinkOnClose(true)
	return &Listener{ul: ul, uid: uid, log: log, conns: make(map[*pollConn]struct{}), lfd: rawFD(ul)}, nil
}

// Listener is the daemon's socket (Listen): it refuses connections whose
// peer is another user, polls while the daemon is busy (Polling), and
// lets the daemon's background work give way to waiting clients (Yield).
type Listener struct {
	ul      *net.UnixListener
	uid     int
	log     *slog.Logger
	polling atomic.Bool
	amu     sync.Mutex // orders the arming of Accept's deadline
	mu      sync.Mutex // guards conns, lfd and ys's buffers
	conns   map[*pollConn]struct{}
	lfd     int // the socket's descriptor for Yield's poll; -1 once closed
	ys      yieldState
}

// Accept returns the next connection of the listener's user.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.acceptUnix()
		if err != nil {
			return nil, err
		}
		uid, err := peerUID(c)
		if err != nil {
			l.log.Warn("refused connection: cannot read peer credentials", "err", err)
			c.Close()
			continue
		}
		if uid != l.uid {
			l.log.Warn("refused connection from another user", "peer_uid", uid, "uid", l.uid)
			c.Close()
			continue
		}
		return l.track(c), nil
	}
}

// Close stops listening and removes the socket file.
func (l *Listener) Close() error {
	l.mu.Lock()
	l.lfd = -1
	l.mu.Unlock()
	return l.ul.Close()
}

// Addr is the socket's address.
func (l *Listener) Addr() net.Addr { return l.ul.Addr() }
