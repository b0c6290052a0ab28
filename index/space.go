package index

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"
)

// ErrDiskFull is wrapped by every *DiskFullError.
var ErrDiskFull = errors.New("disk full")

// DiskFullError is returned by every write to the store when the file
// system holding it has too little room left to write safely. Nothing is
// written then: what was committed before stays committed and readable.
type DiskFullError struct {
	Dir        string
	Free, Need uint64 // bytes
}

func (e *DiskFullError) Error() string {
	return fmt.Sprintf("disk full: %d MB free on %s, %d MB needed to write safely", e.Free>>20, e.Dir, (e.Need+1<<20-1)>>20)
}

// Unwrap makes errors.Is(err, ErrDiskFull) hold.
func (e *DiskFullError) Unwrap() error { return ErrDiskFull }

// DefaultMinFree is the room a write must leave on the data directory's file
// system, beyond twice its own size: Badger writes its value log, memtable
// and table files through memory maps of files it creates sparse, so a write
// that finds no free block on the disk is a SIGBUS that kills the process,
// not an error. The margin covers the next memtable's flush to a level-0
// table (16 MiB) and a compaction's new tables before the old ones go.
const DefaultMinFree = 64 << 20

// diskSpace decides whether a write of some size may go ahead.
type diskSpace struct {
	dir     string
	minFree uint64
	// free reports the bytes available on the file system holding dir (a
	// variable so tests can simulate a full disk).
	free func(dir string) (uint64, error)
	full atomic.Pointer[DiskFullError] // the last refusal, nil once writes pass again
}

// check returns a *DiskFullError unless a write of size bytes leaves
// minFree bytes free. A file system whose free space cannot be read is not
// refused.
func (sp *diskSpace) check(size int64) error {
	free, err := sp.free(sp.dir)
	if err != nil {
		return nil
	}
	need := sp.minFree + 2*uint64(max(size, 0))
	if free < need {
		e := &DiskFullError{Dir: sp.dir, Free: free, Need: need}
		sp.full.Store(e)
		return e
	}
	sp.full.Store(nil)
	return nil
}

// CheckSpace reports whether the store can take a write of size bytes now
// (nil), or a *DiskFullError saying how much room is missing.
func (s *Store) CheckSpace(size int64) error { return s.disk.check(size) }

// update runs fn in a read-write transaction after checking that about
// size bytes can be written.
func (s *Store) update(size int64, fn func(txn *badger.Txn) error) error {
	if err := s.disk.check(size); err != nil {
		return err
	}
	return s.db.Update(fn)
}

// freeBytes is the default space.free.
func freeBytes(dir string) (uint64, error) {
	if _, err := os.Stat(dir); err != nil {
		return 0, err
	}
	return statfsFree(dir)
}

// Free reports the bytes available on the file system holding the store.
func (s *Store) Free() (uint64, error) { return s.disk.free(s.disk.dir) }
