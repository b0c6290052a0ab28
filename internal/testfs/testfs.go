// Package testfs mounts small tmpfs file systems for ragd's fault tests: a
// vault on a drive that is unmounted, a data directory on a disk that
// fills up. Mounting needs root (CAP_SYS_ADMIN) on Linux; Available says
// why not otherwise, and callers fall back to a simulation or skip with
// that reason.
package testfs

import (
	"errors"
	"fmt"
	"os"
	"sync"
)

// ErrUnavailable is wrapped by Available's error.
var ErrUnavailable = errors.New("cannot mount a tmpfs")

var (
	probeOnce sync.Once
	probeErr  error
)

// Available reports whether Mount works here: it mounts and unmounts a
// tiny tmpfs once.
func Available() error {
	probeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "testfs-probe-")
		if err != nil {
			probeErr = fmt.Errorf("%w: %v", ErrUnavailable, err)
			return
		}
		defer os.Remove(dir)
		if err := Mount(dir, 64<<10); err != nil {
			probeErr = fmt.Errorf("%w: %v", ErrUnavailable, err)
			return
		}
		probeErr = Unmount(dir)
	})
	return probeErr
}
