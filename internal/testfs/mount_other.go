//go:build !linux

package testfs

// Mount is only available on Linux.
func Mount(dir string, size int64) error { return ErrUnavailable }

// Unmount is only available on Linux.
func Unmount(dir string) error { return ErrUnavailable }

// Free is only available on Linux.
func Free(dir string) (uint64, error) { return 0, ErrUnavailable }
