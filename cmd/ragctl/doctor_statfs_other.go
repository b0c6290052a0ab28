//go:build !(darwin || dragonfly || freebsd || linux)

package main

import "errors"

// statfsFree is not implemented here: doctor skips the disk check.
func statfsFree(string) (uint64, error) { return 0, errors.ErrUnsupported }
