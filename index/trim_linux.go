//go:build linux

package index

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// TrimMapped drops the pages of the index's memory-mapped files (Badger's
// value log, tables and memtable logs, the lexical segments) from the
// process's resident set. They are file-backed and shared, so nothing is
// lost: the data stays in the page cache and on disk, and a later read
// faults the page it needs back in. Badger maps everything it writes and
// keeps it mapped, so after a large pass an idle daemon would otherwise
// show tens of megabytes of pages it may never read again as its own.
// It returns the bytes of mappings advised. Call it when the daemon turns
// idle, not per query or per saved note: every dropped page costs a minor
// fault on its next read.
func (s *Store) TrimMapped() (int64, error) {
	dir, err := filepath.Abs(s.dir)
	if err != nil {
		return 0, fmt.Errorf("index: trim: %w", err)
	}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dir = d
	}
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return 0, fmt.Errorf("index: trim: %w", err)
	}
	var total int64
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		start, end, path, ok := parseMapsLine(sc.Text())
		if !ok || !strings.HasPrefix(path, dir+string(filepath.Separator)) {
			continue
		}
		// MADV_DONTNEED on a shared file mapping only unmaps its pages
		// from this process (dirty ones stay in the page cache for
		// writeback); it never discards data. The range comes from the
		// kernel's own list of this process's mappings.
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED); errno != 0 {
			continue // unmapped meanwhile (a merge released a segment)
		}
		total += int64(end - start)
	}
	return total, nil
}

// parseMapsLine reads "start-end perms offset dev inode path" of a shared
// mapping from /proc/self/maps.
func parseMapsLine(line string) (start, end uint64, path string, ok bool) {
	f := strings.Fields(line)
	if len(f) < 6 || len(f[1]) < 4 || f[1][3] != 's' {
		return 0, 0, "", false
	}
	lo, hi, found := strings.Cut(f[0], "-")
	if !found {
		return 0, 0, "", false
	}
	var err1, err2 error
	start, err1 = strconv.ParseUint(lo, 16, 64)
	end, err2 = strconv.ParseUint(hi, 16, 64)
	if err1 != nil || err2 != nil || end <= start {
		return 0, 0, "", false
	}
	return start, end, strings.Join(f[5:], " "), true
}
