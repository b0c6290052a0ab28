package index

import (
	"errors"

	"github.com/dgraph-io/badger/v4"
)

// Cache names a cache of what a plugin computed from a file's bytes, keyed
// by the file's content hash and the plugin, so that a renamed, moved,
// copied or re-chunked file is not sent to the plugin again. index/ingest
// owns what the values mean:
//
//	x/<sha256 hex of the file>|<extractor>  → extracted text (JSON)
//	y/<sha256 hex of the note>|<extractor>  → typed entities and facts (JSON)
type Cache byte

// The caches.
const (
	CacheExtraction Cache = 'x'
	CacheEnrichment Cache = 'y'
)

func cacheKey(c Cache, sha, plugin string) []byte {
	return append([]byte{byte(c), '/'}, sha+"|"+plugin...)
}

// Cached returns the cached value for a file's hash and a plugin; found is
// false when there is none.
func (s *Store) Cached(c Cache, sha, plugin string) (val []byte, found bool, err error) {
	err = s.db.View(func(txn *badger.Txn) error {
		it, err := txn.Get(cacheKey(c, sha, plugin))
		if err != nil {
			return err
		}
		val, err = it.ValueCopy(nil)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, false, nil
	}
	return val, err == nil, err
}

// PutCache stores a value in a cache. A value larger than a document may
// be is not cached.
func (s *Store) PutCache(c Cache, sha, plugin string, val []byte) error {
	if int64(len(val)) > maxDocumentBytes {
		return nil
	}
	return s.update(int64(len(val)), func(txn *badger.Txn) error { return txn.Set(cacheKey(c, sha, plugin), val) })
}
