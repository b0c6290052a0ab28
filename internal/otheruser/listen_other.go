//go:build !linux

package otheruser

import (
	"net"
)

const supported = false

// Listen is only available on Linux.
func Listen(uid int, path string) (*net.UnixListener, error) { return nil, ErrUnavailable }
