package testfs

import (
	"errors"
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// Mount mounts a tmpfs of size bytes (rounded up to pages) on dir.
func Mount(dir string, size int64) error {
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "size="+strconv.FormatInt(size, 10)+",mode=0755"); err != nil {
		return fmt.Errorf("mount tmpfs on %s: %w", dir, err)
	}
	return nil
}

// Unmount unmounts dir, lazily (MNT_DETACH) if it is busy, the way a
// removable drive disappears under a running program.
func Unmount(dir string) error {
	err := unix.Unmount(dir, 0)
	if errors.Is(err, unix.EBUSY) {
		err = unix.Unmount(dir, unix.MNT_DETACH)
	}
	if err != nil {
		return fmt.Errorf("unmount %s: %w", dir, err)
	}
	return nil
}

// Free reports the bytes available on the file system holding dir.
func Free(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return st.Bavail * uint64(st.Bsize), nil
}
