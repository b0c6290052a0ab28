package ipc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// ErrUnsafeSocket is wrapped by every *UnsafeSocketError, for callers that
// only need to know that a socket was refused for safety.
var ErrUnsafeSocket = errors.New("unsafe socket")

// UnsafeSocketError says a socket, or the directory holding it, could be
// controlled by another user: the daemon refuses to listen there and the
// Client refuses to send anything to it. A socket directory that another
// user owns or can write lets that user replace the socket with a listener
// of their own, which would then read every query.
type UnsafeSocketError struct {
	Path   string // the socket or directory refused
	Reason string // what is wrong with it, in words
}

func (e *UnsafeSocketError) Error() string {
	return fmt.Sprintf("refusing socket %s: %s; another user could impersonate ragd there", e.Path, e.Reason)
}

// Unwrap makes errors.Is(err, ErrUnsafeSocket) hold.
func (e *UnsafeSocketError) Unwrap() error { return ErrUnsafeSocket }

// checkDir reports whether dir is a directory that only uid controls: owned
// by uid and writable by nobody else. A symlinked directory is judged by
// its target.
func checkDir(dir string, uid int) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return &UnsafeSocketError{Path: dir, Reason: "the socket's directory is not a directory"}
	}
	owner, ok := fileOwner(fi)
	if !ok {
		return nil // no owners on this platform
	}
	if owner != uid {
		return &UnsafeSocketError{Path: dir, Reason: fmt.Sprintf(
			"the socket's directory belongs to uid %d, not to you (uid %d): remove it, or set another socket", owner, uid)}
	}
	if fi.Mode().Perm()&0o022 != 0 {
		if fi.Mode()&fs.ModeSticky != 0 {
			return &UnsafeSocketError{Path: dir, Reason: "the socket's directory is writable by others " +
				"(a shared directory like /tmp): give the socket a directory of its own, like " + filepath.Join(dir, "ragd-"+strconv.Itoa(uid), "ragd.sock")}
		}
		return &UnsafeSocketError{Path: dir, Reason: fmt.Sprintf(
			"the socket's directory is writable by others (mode %04o): `chmod 700 %s`, or set another socket", fi.Mode().Perm(), dir)}
	}
	return nil
}

// checkSocketFile reports whether path, when it exists, is a socket owned
// by uid. A missing file is not an error here (nothing to refuse yet).
func checkSocketFile(path string, uid int) error {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSocket == 0 {
		return &UnsafeSocketError{Path: path, Reason: "it is not a socket"}
	}
	if owner, ok := fileOwner(fi); ok && owner != uid {
		return &UnsafeSocketError{Path: path, Reason: fmt.Sprintf("it belongs to uid %d, not to you (uid %d)", owner, uid)}
	}
	return nil
}

// CheckSocket reports whether a client may talk to the socket at path: its
// directory must belong to the current user and be writable by nobody else,
// and the socket itself must be the user's. A path that does not exist
// passes (dialling it then fails as "not running"). The Client runs this
// before every connection and, on Linux, also checks the peer credentials
// of the connected socket.
func CheckSocket(path string) error {
	return checkSocket(path, os.Getuid())
}

func checkSocket(path string, uid int) error {
	if err := checkDir(filepath.Dir(path), uid); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return checkSocketFile(path, uid)
}

// dialSafe connects to the daemon's socket after CheckSocket and, where the
// platform can tell, refuses a listener run by another user.
func dialSafe(ctx context.Context, path string, uid int) (net.Conn, error) {
	if err := checkSocket(path, uid); err != nil {
		return nil, err
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	if err := checkPeer(c.(*net.UnixConn), path, uid); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// checkPeer refuses a connection whose listener runs as another user
// (where the platform can tell: SO_PEERCRED on Linux).
func checkPeer(c *net.UnixConn, path string, uid int) error {
	peer, err := peerUID(c)
	if err != nil {
		return &UnsafeSocketError{Path: path, Reason: fmt.Sprintf("cannot read the listener's credentials: %v", err)}
	}
	if peer != uid {
		return &UnsafeSocketError{Path: path, Reason: fmt.Sprintf("the process listening on it runs as uid %d, not as you (uid %d)", peer, uid)}
	}
	return nil
}
