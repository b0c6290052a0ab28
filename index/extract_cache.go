package index

import (
	"encoding/json"
	"errors"

	"github.com/dgraph-io/badger/v4"
)

// Extraction cache: the text extracted from a file, keyed by the file's
// content hash and the extractor's name and version, so a renamed, moved
// or re-chunked PDF is not parsed again.
//
//	x/<sha256 hex of the file>|<extractor>  → Extracted (JSON)
const nsExtract = 'x'

func extractKey(sha, extractor string) []byte {
	return append([]byte{nsExtract, '/'}, sha+"|"+extractor...)
}

// CachedExtraction returns the cached extraction of a file's bytes by an
// extractor, if any.
func (s *Store) CachedExtraction(sha, extractor string) (*Extracted, bool) {
	var x *Extracted
	err := s.db.View(func(txn *badger.Txn) error {
		it, err := txn.Get(extractKey(sha, extractor))
		if err != nil {
			return err
		}
		return it.Value(func(v []byte) error {
			x = new(Extracted)
			return json.Unmarshal(v, x)
		})
	})
	if err != nil {
		if !errors.Is(err, badger.ErrKeyNotFound) {
			s.log.Warn("extraction cache unreadable", "err", err)
		}
		return nil, false
	}
	return x, true
}

// CacheExtraction stores an extraction. Entries too large for one
// transaction are not cached.
func (s *Store) CacheExtraction(sha, extractor string, x *Extracted) {
	b, err := json.Marshal(x)
	if err != nil || int64(len(b)) > s.db.MaxBatchSize()/2 {
		return
	}
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(extractKey(sha, extractor), b) }); err != nil {
		s.log.Warn("could not cache an extraction", "err", err)
	}
}
