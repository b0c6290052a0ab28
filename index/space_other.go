//go:build !(darwin || dragonfly || freebsd || linux)

package index

import "errors"

// statfsFree is not implemented here: writes are never refused.
func statfsFree(string) (uint64, error) { return 0, errors.ErrUnsupported }
