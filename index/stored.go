package index

import (
	"encoding/binary"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// A path key's value (p/<vault>\0<path>) is the document's id, followed by
// what a pass compares the file on disk with to skip it unread: the stat
// the file was read with, whether it was hashed, retried or failed for
// want of an extractor, and a checksum of its pipeline. It is written with
// the document record and small enough to stay in Badger's tree, so a pass
// over an unchanged vault reads one key range and decodes no document
// record. A value of only the id (written before these were kept) is
// Known = false: the pass reads the document record instead.

const storedVersion = 1

const (
	storedHashed = 1 << iota
	storedRetry
	storedNoExtractor
)

// StoredStat is what a stored document says about the file it was read
// from, for deciding without reading it whether the file changed.
type StoredStat struct {
	Size    int64
	ModTime int64 // Unix ns
	Inode   uint64
	CTime   int64 // Unix ns
	StatAt  int64 // Unix ns, when the file was stat'ed before it was read
	// Hashed: the file was read and hashed (the document has a hash).
	Hashed bool
	// Retry: the document's failure says nothing about the file.
	Retry bool
	// NoExtractor: the document failed because no extractor took it.
	NoExtractor bool
	Pipeline    uint64 // PipelineSum of the document's pipeline
}

// StoredFile is a stored document as a pass sees it first: its id, path
// and, when Known, the stat of the file it was read from.
type StoredFile struct {
	ID    DocID
	Path  string
	Known bool
	Stat  StoredStat
}

// PipelineSum is the checksum of a pipeline string kept beside the path.
func PipelineSum(p string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(p))
	return h.Sum64()
}

// pathValue is the value of a document's path key.
func pathValue(id DocID, d *Document) []byte {
	b := make([]byte, 8, 64)
	copy(b, docKey(id)[2:])
	b = append(b, storedVersion, storedFlags(d))
	b = binary.AppendVarint(b, d.Size)
	b = binary.AppendVarint(b, d.ModTime.UnixNano())
	b = binary.AppendUvarint(b, d.Inode)
	b = binary.AppendVarint(b, d.CTime)
	b = binary.AppendVarint(b, d.StatAt)
	return binary.LittleEndian.AppendUint64(b, PipelineSum(d.Pipeline))
}

func storedFlags(d *Document) byte {
	var f byte
	if d.Hash != "" {
		f |= storedHashed
	}
	if d.Retry {
		f |= storedRetry
	}
	if d.Status == StatusFailed && strings.HasPrefix(d.Error, "no extractor") {
		f |= storedNoExtractor
	}
	return f
}

// parsePathValue reads a path key's value; known is false when it holds
// only the id.
func parsePathValue(v []byte) (id DocID, st StoredStat, known bool, err error) {
	if len(v) < 8 {
		return 0, st, false, errCorrupt
	}
	id = idFromKey(append([]byte{0, 0}, v[:8]...))
	if len(v) == 8 {
		return id, st, false, nil
	}
	r := &reader{b: v[8:]}
	if r.byte() != storedVersion {
		return id, st, false, nil // a later format: read the document
	}
	flags := r.byte()
	st.Size, st.ModTime = int64(r.int()), int64(r.int())
	st.Inode = r.uvarint()
	st.CTime, st.StatAt = int64(r.int()), int64(r.int())
	if b := r.bytes(8); b != nil {
		st.Pipeline = binary.LittleEndian.Uint64(b)
	}
	if err := r.done(); err != nil {
		return id, st, false, err
	}
	st.Hashed, st.Retry, st.NoExtractor = flags&storedHashed != 0, flags&storedRetry != 0, flags&storedNoExtractor != 0
	return id, st, true, nil
}

// StoredFiles lists the stored documents of vault (all statuses) that lie
// under any of scopes (every one with none), sorted by path, from their
// path keys alone.
func (s *Store) StoredFiles(vault string, scopes []string) ([]StoredFile, error) {
	if len(scopes) == 0 {
		scopes = []string{""}
	}
	var out []StoredFile
	seen := make(map[DocID]bool)
	strip := len(vaultPathPrefix(vault))
	err := s.db.View(func(txn *badger.Txn) error {
		for _, sc := range scopes {
			sc = strings.Trim(sc, "/")
			if err := iterate(txn, pathKey(vault, sc), true, func(k, v []byte) error {
				p := string(k[strip:])
				if !InScope(p, sc) {
					return nil
				}
				id, st, known, err := parsePathValue(v)
				if err != nil {
					return err
				}
				if !seen[id] {
					seen[id] = true
					out = append(out, StoredFile{ID: id, Path: p, Known: known, Stat: st})
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}
