//go:build unix

package watch

import (
	"io/fs"
	"syscall"
)

// devIno returns the device and inode of fi's file.
func devIno(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino)
	}
	return 0, 0
}
