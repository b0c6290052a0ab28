package index

import (
	"io"

	"github.com/dgraph-io/badger/v4"
)

// Internals the external tests (package index_test) reach for.

func (s *Store) SnapshotPath(id uint64) string            { return s.snapshotPath(id) }
func (s *Store) StoredHashes(id uint64) ([]uint64, error) { return s.storedHashes(id) }
func (s *Store) MaxBatchSize() int64                      { return s.db.MaxBatchSize() }
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
