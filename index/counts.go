package index

import (
	"encoding/json"
	"errors"
	"maps"
	"sort"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// Per-vault counts — searchable documents and chunks, failed files — are
// what status shows for every vault. They are kept as documents are written
// (Apply updates them in the same transaction, under m/vaults, and
// applyMem publishes them), so that Counts costs O(vaults) and opening the
// store reads one record instead of walking the index.

// VaultCount is the per-vault tally shown by status.
type VaultCount struct {
	Documents int `json:"documents"`
	Chunks    int `json:"chunks"`
	Failed    int `json:"failed"`
}

var keyVaultCounts = []byte("m/vaults")

// addStats adds (sign 1) or removes (sign -1) a document's statistics to
// vault's count in cs.
func addStats(cs map[string]VaultCount, vault string, st Stats, sign int) {
	if st == (Stats{}) {
		return
	}
	c := cs[vault]
	c.Documents += sign * int(st.Docs)
	c.Chunks += sign * int(st.Chunks)
	c.Failed += sign * int(st.Failed)
	if c == (VaultCount{}) {
		delete(cs, vault)
	} else {
		cs[vault] = c
	}
}

// readVaultCounts reads the stored per-vault counts; found is false for a
// store written before they were kept.
func readVaultCounts(txn *badger.Txn) (cs map[string]VaultCount, found bool, err error) {
	it, err := txn.Get(keyVaultCounts)
	if errors.Is(err, badger.ErrKeyNotFound) {
		return map[string]VaultCount{}, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	err = it.Value(func(v []byte) error { return json.Unmarshal(v, &cs) })
	if cs == nil {
		cs = map[string]VaultCount{}
	}
	return cs, err == nil, err
}

// failedDoc names a document recorded as failed (path "" until read).
type failedDoc struct{ vault, path string }

// failedValue is the e/<doc> value: the vault and the path.
func failedValue(vault, path string) []byte { return []byte(vault + "\x00" + path) }

func parseFailed(v []byte) failedDoc {
	vault, path, _ := strings.Cut(string(v), "\x00")
	return failedDoc{vault, path}
}

// Counts returns documents, searchable chunks and failed files per vault.
// They are kept as documents are written: this costs O(vaults), and never
// waits for the graph's lock.
func (s *Store) Counts() (map[string]VaultCount, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	m := s.mem
	m.tmu.Lock()
	defer m.tmu.Unlock()
	return maps.Clone(m.counts), nil
}

// FailedDocuments returns up to limit skipped files of vault, sorted by
// path, reading only their records.
func (s *Store) FailedDocuments(vault string, limit int) ([]Document, error) {
	type ref struct {
		id   DocID
		path string
	}
	var refs []ref
	m := s.mem
	m.tmu.Lock()
	for id, f := range m.failed {
		if f.vault == vault {
			refs = append(refs, ref{id, f.path})
		}
	}
	m.tmu.Unlock()
	var out []Document
	err := s.db.View(func(txn *badger.Txn) error {
		// Entries written before the path was kept: read their records.
		for i, r := range refs {
			if r.path != "" {
				continue
			}
			d, err := getDoc(txn, r.id)
			if err != nil {
				return err
			}
			if d != nil {
				refs[i].path = d.Path
			}
		}
		sort.Slice(refs, func(i, j int) bool { return refs[i].path < refs[j].path })
		for _, r := range refs[:min(limit, len(refs))] {
			d, err := getDoc(txn, r.id)
			if err != nil {
				return err
			}
			if d != nil && d.Status == StatusFailed {
				out = append(out, *d)
			}
		}
		return nil
	})
	return out, err
}
