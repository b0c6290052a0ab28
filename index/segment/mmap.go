package segment

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps a segment file read-only. The mapping outlives the file
// descriptor; release unmaps it.
func mapFile(path string) ([]byte, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := st.Size()
	if size == 0 || size != int64(int(size)) {
		return nil, nil, fmt.Errorf("segment: %s: bad size %d", path, size)
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("segment: map %s: %w", path, err)
	}
	return b, func() error { return unix.Munmap(b) }, nil
}
