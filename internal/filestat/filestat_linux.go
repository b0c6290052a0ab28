//go:build linux || openbsd || solaris || illumos || aix

package filestat

import (
	"io/fs"
	"syscall"
)

func of(fi fs.FileInfo) ID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return ID{Ino: uint64(st.Ino), CTime: st.Ctim.Sec*1e9 + int64(st.Ctim.Nsec)}
	}
	return ID{}
}
