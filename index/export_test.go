package index

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
