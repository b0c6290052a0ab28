//go:build unix

package ipc

import (
	"io/fs"
	"syscall"
)

// fileOwner returns the uid owning fi's file.
func fileOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return -1, false
	}
	return int(st.Uid), true
}
