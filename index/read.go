package index

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// Chunks loads the records of the given chunks, in order. A chunk that no
// longer exists (its document changed after the search) is returned with a
// zero Ref and must be skipped by the caller.
func (s *Store) Chunks(refs []ChunkRef) ([]Chunk, error) {
	out := make([]Chunk, len(refs))
	err := s.db.View(func(txn *badger.Txn) error { return getChunks(txn, refs, out) })
	return out, err
}

// getChunks decodes the chunks refs into out (a zero Ref for one that no
// longer exists).
func getChunks(txn *badger.Txn, refs []ChunkRef, out []Chunk) error {
	for i, r := range refs {
		var ok bool
		err := docChunks(txn, r.Doc, func(cr chunkRecords) (err error) {
			ok, err = cr.chunk(r.Ord, &out[i])
			return err
		})
		if err != nil {
			return fmt.Errorf("index: chunk %s: %w", r, err)
		}
		if ok {
			out[i].Ref = r
		}
	}
	return nil
}

// docChunks calls fn with the chunks record of doc, unless doc has none
// (not indexed, failed, or with neither chunks nor parents). The record is
// valid only during fn.
func docChunks(txn *badger.Txn, doc DocID, fn func(chunkRecords) error) error {
	it, err := txn.Get(docChildPrefix(nsChunk, doc))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	return it.Value(func(v []byte) error {
		cr, err := parseChunks(v)
		if err != nil {
			return err
		}
		return fn(cr)
	})
}

// FileRef names a file of a vault by its vault-relative path.
type FileRef struct{ Vault, Path string }

// Cited is what a page of results cites, read by Cite.
type Cited struct {
	// Chunks are the chunks asked for, in order, as Chunks returns them
	// (a zero Ref for one that no longer exists).
	Chunks []Chunk
	// Parents are the parent sections asked for, in order; ParentOK[i] is
	// false when there is none (the document changed since ranking).
	Parents  []Parent
	ParentOK []bool
	// Stats are the stats the files asked for were indexed with, in order;
	// StatOK[i] is false when the file is not indexed or its stat is not
	// kept (ask Document).
	Stats  []StoredStat
	StatOK []bool
}

// Cite reads the chunks, the parent sections parents (ChunkRef{Doc,
// parent ordinal}) and the stored stats of files in one view of the store:
// one read transaction for a page of results rather than one per record
// (each transaction also costs two messages to Badger's watermark
// goroutine, which wake it).
func (s *Store) Cite(chunks, parents []ChunkRef, files []FileRef) (Cited, error) {
	c := Cited{Chunks: make([]Chunk, len(chunks)), Parents: make([]Parent, len(parents)), ParentOK: make([]bool, len(parents)),
		Stats: make([]StoredStat, len(files)), StatOK: make([]bool, len(files))}
	err := s.db.View(func(txn *badger.Txn) error {
		if err := getChunks(txn, chunks, c.Chunks); err != nil {
			return err
		}
		for i, r := range parents {
			ok, err := getParent(txn, r.Doc, r.Ord, &c.Parents[i])
			if err != nil {
				return err
			}
			c.ParentOK[i] = ok
		}
		for i, f := range files {
			var err error
			if c.Stats[i], c.StatOK[i], err = fileStat(txn, f.Vault, f.Path); err != nil {
				return err
			}
		}
		return nil
	})
	return c, err
}

// getParent decodes the parent section ord of doc into p; false when
// there is none.
func getParent(txn *badger.Txn, doc DocID, ord uint32, p *Parent) (ok bool, err error) {
	err = docChunks(txn, doc, func(cr chunkRecords) error {
		ok, err = cr.parent(ord, p)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("index: parent %s: %w", ChunkRef{Doc: doc, Ord: ord}, err)
	}
	return ok, nil
}

// fileStat returns the stat kept in the path key of vault/path.
func fileStat(txn *badger.Txn, vault, path string) (st StoredStat, known bool, err error) {
	it, err := txn.Get(pathKey(vault, path))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return st, false, nil
	}
	if err != nil {
		return st, false, err
	}
	err = it.Value(func(v []byte) error {
		var err error
		_, st, known, err = parsePathValue(v)
		return err
	})
	return st, known, err
}

// Documents returns every stored document of vault (all statuses), sorted
// by path.
func (s *Store) Documents(vault string) ([]Document, error) {
	var out []Document
	err := s.db.View(func(txn *badger.Txn) error {
		var ids []DocID
		if err := iterate(txn, vaultPathPrefix(vault), true, func(_, v []byte) error {
			id, _, _, err := parsePathValue(v)
			ids = append(ids, id)
			return err
		}); err != nil {
			return err
		}
		for _, id := range ids {
			d, err := getDoc(txn, id)
			if err != nil {
				return err
			}
			if d != nil {
				out = append(out, *d)
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

// DocumentsIn returns the stored documents of vault (all statuses) that
// lie under any of scopes (files or folders, vault-relative, see InScope);
// with no scopes, every document of the vault, sorted by path.
func (s *Store) DocumentsIn(vault string, scopes []string) ([]Document, error) {
	if len(scopes) == 0 {
		return s.Documents(vault)
	}
	var out []Document
	seen := make(map[DocID]bool)
	err := s.db.View(func(txn *badger.Txn) error {
		for _, sc := range scopes {
			sc = strings.Trim(sc, "/")
			prefix := pathKey(vault, sc)
			var ids []DocID
			if err := iterate(txn, prefix, true, func(k, v []byte) error {
				p := string(k[len(vaultPathPrefix(vault)):])
				if id, _, _, err := parsePathValue(v); err == nil && InScope(p, sc) {
					ids = append(ids, id)
				}
				return nil
			}); err != nil {
				return err
			}
			for _, id := range ids {
				if seen[id] {
					continue
				}
				seen[id] = true
				d, err := getDoc(txn, id)
				if err != nil {
					return err
				}
				if d != nil {
					out = append(out, *d)
				}
			}
		}
		return nil
	})
	return out, err
}

// InScope reports whether the vault-relative path p is the file or lies in
// the folder named by scope ("" is the whole vault).
func InScope(p, scope string) bool {
	scope = strings.Trim(scope, "/")
	return scope == "" || p == scope || strings.HasPrefix(p, scope+"/")
}

// Document returns the record of vault/path, if stored.
func (s *Store) Document(vault, path string) (*Document, error) {
	var d *Document
	err := s.db.View(func(txn *badger.Txn) error {
		id, ok, err := s.lookupID(txn, vault, path)
		if err != nil || !ok {
			return err
		}
		d, err = getDoc(txn, id)
		return err
	})
	return d, err
}

// Stats returns the collection statistics as last committed.
func (s *Store) Stats() Stats {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	return s.stats
}

// Vaults lists the names of the vaults that have documents in the store.
func (s *Store) Vaults() ([]string, error) {
	var out []string
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: nsPrefix(nsPath)})
		defer it.Close()
		for it.Rewind(); it.Valid(); {
			k := it.Item().Key()[2:]
			i := bytes.IndexByte(k, 0)
			if i < 0 {
				return errCorrupt
			}
			name := string(k[:i])
			out = append(out, name)
			// Skip the rest of this vault: seek past "<name>\x00\xff…".
			it.Seek(append(vaultPathPrefix(name), 0xff, 0xff, 0xff, 0xff))
		}
		return nil
	})
	return out, err
}

// DropVault deletes every document of a vault that is no longer configured.
func (s *Store) DropVault(vault string) (int, error) {
	docs, err := s.Documents(vault)
	if err != nil {
		return 0, err
	}
	ops := make([]Op, len(docs))
	for i, d := range docs {
		ops[i] = Op{Vault: vault, Path: d.Path}
	}
	return len(ops), s.Apply(ops)
}

// CountUnder counts the stored documents of vault (all statuses) at or
// under the vault-relative scope ("" = the whole vault), reading only their
// path keys.
func (s *Store) CountUnder(vault, scope string) (int, error) {
	scope = strings.Trim(scope, "/")
	n := 0
	err := s.db.View(func(txn *badger.Txn) error {
		strip := len(vaultPathPrefix(vault))
		return iterate(txn, pathKey(vault, scope), false, func(k, _ []byte) error {
			if InScope(string(k[strip:]), scope) {
				n++
			}
			return nil
		})
	})
	return n, err
}

// document reads the record of document id (nil if there is none).
func (s *Store) document(id DocID) (*Document, error) {
	var d *Document
	err := s.db.View(func(txn *badger.Txn) error {
		var err error
		d, err = getDoc(txn, id)
		return err
	})
	return d, err
}
