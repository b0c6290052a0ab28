//go:build !unix

package ipc

import "io/fs"

// fileOwner is unknown outside Unix.
func fileOwner(fs.FileInfo) (int, bool) { return -1, false }
