// Package otheruser lets ragd's tests act as a second local user, the way a
// hostile neighbour on a shared machine would: squat a directory, listen on
// a socket. It needs root on Linux; Available says why not otherwise, and
// callers skip with that reason.
package otheruser

import (
	"errors"
	"fmt"
	"os"
)

// UID is the user the tests act as: nobody.
const UID = 65534

// ErrUnavailable is wrapped by Available's error.
var ErrUnavailable = errors.New("cannot act as another user")

// Available reports whether this process can act as UID: it must run as
// root on Linux.
func Available() error {
	if !supported {
		return fmt.Errorf("%w: needs Linux", ErrUnavailable)
	}
	if os.Geteuid() != 0 {
		return fmt.Errorf("%w: needs root (running as uid %d)", ErrUnavailable, os.Geteuid())
	}
	return nil
}

// Mkdir creates dir owned by uid with exactly mode perm, as a squatter
// would before the victim first starts ragd.
func Mkdir(dir string, uid int, perm os.FileMode) error {
	if err := os.Mkdir(dir, perm); err != nil {
		return err
	}
	if err := os.Chown(dir, uid, uid); err != nil {
		return err
	}
	return os.Chmod(dir, perm)
}
