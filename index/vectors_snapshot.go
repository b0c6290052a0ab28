package index

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/dgraph-io/badger/v4"

	"github.com/ragd/ragd/index/vector"
)

// A snapshot saves a space's in-memory index so that start-up does not
// rebuild it: "RAGDVEC1", the space id, the sorted hashes it holds and a
// CRC-32 of those, then the vector.Index's own checksummed encoding. At
// load the hashes are compared with the keys stored in Badger: vectors
// written after the snapshot are added, deleted ones removed. A missing or
// corrupt snapshot is rebuilt from Badger, and the space's note says so.
const snapshotMagic = "RAGDVEC1"

func (s *Store) snapshotPath(id uint64) string {
	return filepath.Join(s.dir, "vectors", fmt.Sprintf("%016x.snap", id))
}

func (s *Store) removeSnapshot(id uint64) { os.Remove(s.snapshotPath(id)) }

// storedHashes lists the hashes stored for a space (keys only).
func (s *Store) storedHashes(id uint64) ([]uint64, error) {
	var out []uint64
	err := s.db.View(func(txn *badger.Txn) error {
		return iterate(txn, vectorPrefix(id), false, func(k, _ []byte) error {
			out = append(out, binary.BigEndian.Uint64(k[10:]))
			return nil
		})
	})
	slices.Sort(out)
	return out, err
}

// readVectors loads stored vectors by hash; missing ones are skipped.
func (s *Store) readVectors(id uint64, hashes []uint64) ([][]float32, error) {
	out := make([][]float32, 0, len(hashes))
	err := s.db.View(func(txn *badger.Txn) error {
		for _, h := range hashes {
			it, err := txn.Get(vectorKey(id, h))
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if err := it.Value(func(b []byte) error {
				v, err := decodeVector(b)
				out = append(out, v)
				return err
			}); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// loadSpace loads the space of sig: from its snapshot, caught up with
// Badger, or rebuilt from Badger, and starts keeping its backlog. dims is 0
// when unknown until a vector is seen. Callers hold vecs.wmu.
func (s *Store) loadSpace(sig string, dims int) (*space, error) {
	id := SpaceID(sig)
	sp := &space{id: id, sig: sig, dims: dims}
	have := make(map[uint64]struct{})
	stored, err := s.storedHashes(id)
	if err != nil {
		return nil, fmt.Errorf("index: list vectors: %w", err)
	}
	idx, keys, snapErr := s.readSnapshot(id)
	switch {
	case snapErr == nil && (dims == 0 || idx.Dims() == dims):
		sp.idx, sp.dims = idx, idx.Dims()
		add, del := diffSorted(stored, keys)
		for _, h := range keys {
			have[h] = struct{}{}
		}
		for _, h := range del {
			sp.idx.Delete(h)
			delete(have, h)
		}
		if err := s.addStored(sp, have, add); err != nil {
			return nil, err
		}
		if len(add)+len(del) > 0 {
			sp.note = fmt.Sprintf("snapshot was stale (%d added, %d removed since): caught up from Badger", len(add), len(del))
			sp.dirty = true
		}
	default:
		if snapErr == nil {
			snapErr = fmt.Errorf("has %d dimensions, the embedder %d", idx.Dims(), dims)
		}
		if dims > 0 {
			sp.idx = newVectorIndex(dims)
		}
		if err := s.addStored(sp, have, stored); err != nil {
			return nil, err
		}
		if len(stored) > 0 {
			sp.note = fmt.Sprintf("snapshot unusable (%v): rebuilt from Badger", snapErr)
			sp.dirty = true
			s.log.Warn("vector index rebuilt from the store", "vectors", len(stored), "reason", snapErr)
		}
	}
	sp.cov = s.cover(id, have)
	return sp, nil
}

// addStored reads the given hashes' vectors from Badger into sp, whose
// hashes are have.
func (s *Store) addStored(sp *space, have map[uint64]struct{}, hashes []uint64) error {
	for len(hashes) > 0 {
		batch := hashes[:min(len(hashes), 4096)]
		hashes = hashes[len(batch):]
		vecs, err := s.readVectors(sp.id, batch)
		if err != nil {
			return fmt.Errorf("index: read vectors: %w", err)
		}
		if len(vecs) != len(batch) {
			return fmt.Errorf("index: vectors vanished while loading")
		}
		for i, v := range vecs {
			if sp.idx == nil {
				sp.dims = len(v)
				sp.idx = newVectorIndex(sp.dims)
			}
			if len(v) != sp.dims {
				return fmt.Errorf("index: stored vector has %d dimensions, the space %d", len(v), sp.dims)
			}
			sp.idx.Add(batch[i], v)
			have[batch[i]] = struct{}{}
		}
	}
	return nil
}

// diffSorted returns what is in want but not have (add) and in have but
// not want (del); both inputs are sorted.
func diffSorted(want, have []uint64) (add, del []uint64) {
	i, j := 0, 0
	for i < len(want) || j < len(have) {
		switch {
		case j == len(have) || (i < len(want) && want[i] < have[j]):
			add = append(add, want[i])
			i++
		case i == len(want) || have[j] < want[i]:
			del = append(del, have[j])
			j++
		default:
			i++
			j++
		}
	}
	return add, del
}

func (s *Store) readSnapshot(id uint64) (vector.Index, []uint64, error) {
	f, err := os.Open(s.snapshotPath(id))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil, errors.New("no snapshot")
		}
		return nil, nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var head [8 + 8 + 8]byte
	if _, err := io.ReadFull(r, head[:]); err != nil || string(head[:8]) != snapshotMagic {
		return nil, nil, errors.New("snapshot header is corrupt")
	}
	if binary.BigEndian.Uint64(head[8:]) != id {
		return nil, nil, errors.New("snapshot belongs to another space")
	}
	n := binary.BigEndian.Uint64(head[16:])
	if n > 1<<32 {
		return nil, nil, errors.New("snapshot header is corrupt")
	}
	kb := make([]byte, 8*n+4)
	if _, err := io.ReadFull(r, kb); err != nil {
		return nil, nil, errors.New("snapshot is truncated")
	}
	if crc32.ChecksumIEEE(kb[:8*n]) != binary.BigEndian.Uint32(kb[8*n:]) {
		return nil, nil, errors.New("snapshot checksum mismatch")
	}
	keys := make([]uint64, n)
	for i := range keys {
		keys[i] = binary.BigEndian.Uint64(kb[8*i:])
	}
	idx, err := vector.Load(r)
	if err != nil {
		return nil, nil, fmt.Errorf("snapshot index: %w", err)
	}
	if idx.Len() != len(keys) {
		return nil, nil, errors.New("snapshot index and key list disagree")
	}
	return idx, keys, nil
}

// snapshotWriteHook, if set (by tests), wraps the writer a space's index is
// saved to.
var snapshotWriteHook func(io.Writer) io.Writer

// SaveVectorSnapshots writes the snapshot of every loaded space that
// changed since its last one (atomically: temp file, fsync, rename).
// Searches go on while it writes; vector writers wait.
func (s *Store) SaveVectorSnapshots() error {
	v := &s.vecs
	v.wmu.Lock()
	defer v.wmu.Unlock()
	var errs []error
	for _, sp := range []*space{v.active, v.building} {
		if sp == nil || sp.idx == nil || !sp.dirty {
			continue
		}
		if err := s.writeSnapshot(sp); err != nil {
			errs = append(errs, err)
			continue
		}
		sp.dirty = false
	}
	return errors.Join(errs...)
}

// writeSnapshot writes sp's snapshot. Callers hold vecs.wmu, so sp's index
// and its vectors do not change meanwhile.
func (s *Store) writeSnapshot(sp *space) error {
	p := s.snapshotPath(sp.id)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".snap-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	w := bufio.NewWriterSize(f, 1<<20)
	s.mem.mu.RLock()
	keys := make([]uint64, 0, len(sp.cov.have))
	for h := range sp.cov.have {
		keys = append(keys, h)
	}
	s.mem.mu.RUnlock()
	slices.Sort(keys)
	head := make([]byte, 24, 24+8*len(keys)+4)
	copy(head, snapshotMagic)
	binary.BigEndian.PutUint64(head[8:], sp.id)
	binary.BigEndian.PutUint64(head[16:], uint64(len(keys)))
	for _, k := range keys {
		head = binary.BigEndian.AppendUint64(head, k)
	}
	head = binary.BigEndian.AppendUint32(head, crc32.ChecksumIEEE(head[24:]))
	if _, err := w.Write(head); err != nil {
		f.Close()
		return err
	}
	var iw io.Writer = w
	if snapshotWriteHook != nil {
		iw = snapshotWriteHook(w)
	}
	if err := sp.idx.Save(iw); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), p)
}
