package index

import (
	"encoding/json"
	"errors"

	"github.com/dgraph-io/badger/v4"
)

// Enrichment cache: what an entity extractor found in a note, keyed by the
// note's content hash and the extractor, so an unchanged, renamed or
// copied note is never sent to the model again.
//
//	y/<sha256 hex of the note>|<extractor>  → Enrichment (JSON)
const nsEnrich = 'y'

func enrichKey(sha, extractor string) []byte {
	return append([]byte{nsEnrich, '/'}, sha+"|"+extractor...)
}

// CachedEnrichment returns the cached enrichment of a note's bytes by an
// extractor, if any.
func (s *Store) CachedEnrichment(sha, extractor string) (*Enrichment, bool) {
	var e *Enrichment
	err := s.db.View(func(txn *badger.Txn) error {
		it, err := txn.Get(enrichKey(sha, extractor))
		if err != nil {
			return err
		}
		return it.Value(func(v []byte) error {
			e = new(Enrichment)
			return json.Unmarshal(v, e)
		})
	})
	if err != nil {
		if !errors.Is(err, badger.ErrKeyNotFound) {
			s.log.Warn("enrichment cache unreadable", "err", err)
		}
		return nil, false
	}
	return e, true
}

// CacheEnrichment stores an enrichment. Entries too large for one
// transaction are not cached.
func (s *Store) CacheEnrichment(sha, extractor string, e *Enrichment) {
	b, err := json.Marshal(e)
	if err != nil || int64(len(b)) > s.db.MaxBatchSize()/2 {
		return
	}
	if err := s.db.Update(func(txn *badger.Txn) error { return txn.Set(enrichKey(sha, extractor), b) }); err != nil {
		s.log.Warn("could not cache an enrichment", "err", err)
	}
}
