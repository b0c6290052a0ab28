package index

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// Ingestion runs are kept under u/<start time, ns:8> as JSON, so they list
// in time order. Only the most recent maxRuns are kept.
const (
	nsRun   = 'u'
	maxRuns = 1000
)

func runKey(startNanos int64) []byte {
	k := []byte{nsRun, '/'}
	return binary.BigEndian.AppendUint64(k, uint64(startNanos))
}

// PutRun stores (or updates) the JSON record of the run that started at
// startNanos, and trims the oldest runs beyond the limit.
func (s *Store) PutRun(startNanos int64, run any) error {
	b, err := json.Marshal(run)
	if err != nil {
		return err
	}
	return s.update(int64(len(b)), func(txn *badger.Txn) error {
		if err := txn.Set(runKey(startNanos), b); err != nil {
			return err
		}
		var keys [][]byte
		if err := iterate(txn, nsPrefix(nsRun), false, func(k, _ []byte) error {
			keys = append(keys, append([]byte(nil), k...))
			return nil
		}); err != nil {
			return err
		}
		for i := 0; i < len(keys)-maxRuns; i++ {
			if err := txn.Delete(keys[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// Runs returns the JSON records of the newest limit runs, newest first.
func (s *Store) Runs(limit int) ([]json.RawMessage, error) {
	var out []json.RawMessage
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: nsPrefix(nsRun), Reverse: true, PrefetchValues: true})
		defer it.Close()
		// Reverse iteration starts at the largest key with the prefix.
		for it.Seek(append(nsPrefix(nsRun), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff)); it.Valid() && len(out) < limit; it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out = append(out, v)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("index: runs: %w", err)
	}
	return out, nil
}
