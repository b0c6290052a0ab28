//go:build darwin || freebsd || netbsd || dragonfly

package filestat

import (
	"io/fs"
	"syscall"
)

func of(fi fs.FileInfo) ID {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return ID{Ino: uint64(st.Ino), CTime: st.Ctimespec.Sec*1e9 + int64(st.Ctimespec.Nsec)}
	}
	return ID{}
}
