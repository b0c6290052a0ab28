//go:build darwin || dragonfly || freebsd || linux

package index

import "syscall"

// statfsFree returns the bytes available to an unprivileged user on the
// file system holding path.
func statfsFree(path string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}
