package index

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/ragd/ragd/index/graph"
)

// Internals the external tests (package index_test) reach for.

func (s *Store) SnapshotPath(id uint64) string            { return s.snapshotPath(id) }
func (s *Store) StoredHashes(id uint64) ([]uint64, error) { return s.storedHashes(id) }
func (s *Store) GCValueLog() int                          { return s.gcValueLog() }
func (s *Store) Flatten(workers int) error                { return s.db.Flatten(workers) }

// SetValueLogFileSize sets the size of new value log files until restore
// is called.
func SetValueLogFileSize(n int64) (restore func()) {
	old := valueLogFileSize
	valueLogFileSize = n
	return func() { valueLogFileSize = old }
}

// SetFree replaces how the store reads its disk's free space.
func (s *Store) SetFree(f func(dir string) (uint64, error)) { s.disk.free = f }

// SetSnapshotWriteHook wraps the writer snapshots are saved to until
// restore is called.
func SetSnapshotWriteHook(h func(io.Writer) io.Writer) (restore func()) {
	snapshotWriteHook = h
	return func() { snapshotWriteHook = nil }
}

// SetVectorCommitHook runs h before PutVectors commits, until restore is
// called.
func SetVectorCommitHook(h func()) (restore func()) {
	vectorCommitHook = h
	return func() { vectorCommitHook = nil }
}

// ForgetVaultCounts deletes the stored per-vault counts, as in a store
// written before they were kept.
func (s *Store) ForgetVaultCounts() error {
	return s.db.Update(func(txn *badger.Txn) error { return txn.Delete(keyVaultCounts) })
}

// DropNamesRecords deletes every n/ record, as in a store written before
// they were kept.
func (s *Store) DropNamesRecords() error {
	return s.db.DropPrefix(nsPrefix(nsNames))
}

// DropPathStats rewrites every path key to hold only the document's id,
// as in a store written before the stat was kept beside it.
func (s *Store) DropPathStats() error {
	return s.db.Update(func(txn *badger.Txn) error {
		type kv struct{ k, v []byte }
		var all []kv
		if err := iterate(txn, nsPrefix(nsPath), true, func(k, v []byte) error {
			all = append(all, kv{append([]byte(nil), k...), append([]byte(nil), v[:8]...)})
			return nil
		}); err != nil {
			return err
		}
		for _, e := range all {
			if err := txn.Set(e.k, e.v); err != nil {
				return err
			}
		}
		return nil
	})
}

// SetReplayBatch sets how many note records a rebuild applies at a time
// until restore is called.
func SetReplayBatch(n int) (restore func()) {
	old := replayBatch
	replayBatch = n
	return func() { replayBatch = old }
}

// HoldNamesLoad makes the graph's loads of the stores opened from now on
// wait until release is called.
func HoldNamesLoad() (release func()) {
	ch := make(chan struct{})
	h := func() { <-ch }
	namesLoadHook.Store(&h)
	return func() { namesLoadHook.Store(nil); close(ch) }
}

// NamesSnapshotServes reports whether the names snapshot answers anchor
// resolution now.
func (s *Store) NamesSnapshotServes() bool { return s.earlyNames() != nil }

// NamesSnapshotAgrees compares every name the loaded graph resolves with
// what the names snapshot on disk (of the store's change) answers; it
// reports the names that differ, and whether there was a snapshot.
func (s *Store) NamesSnapshotAgrees() (diff []string, found bool, err error) {
	snap, err := openNames(s.namesPath(), s.seq)
	if err != nil || snap == nil {
		return nil, false, err
	}
	s.mem.rlockNames()
	defer s.mem.mu.RUnlock()
	n := 0
	s.mem.graph.EachName(func(vault, name string, ids []graph.DocID) {
		if len(ids) == 0 || name[0] == '#' {
			return
		}
		n++
		want := make([]uint64, len(ids))
		for i, id := range ids {
			want[i] = uint64(id)
		}
		if got := snap.resolve(vault, name); !slices.Equal(got, want) {
			diff = append(diff, vault+"/"+name)
		}
	})
	if snap.n < n {
		diff = append(diff, fmt.Sprintf("%d entries for %d names", snap.n, n))
	}
	return diff, true, nil
}

// NamesPath is where the names snapshot is kept.
func (s *Store) NamesPath() string { return s.namesPath() }

// OnAnchorWarm calls fn after each warm of the anchor keys, with whether it
// went through, and makes a quiet spell of the index last quiet, until
// restore is called.
func OnAnchorWarm(quiet time.Duration, fn func(done bool)) (restore func()) {
	old := anchorWarmQuiet
	anchorWarmQuiet = quiet
	warmHook.Store(&fn)
	return func() { warmHook.Store(nil); anchorWarmQuiet = old }
}
