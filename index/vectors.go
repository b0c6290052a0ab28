package index

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/dgraph-io/badger/v4"

	"github.com/ragd/ragd/index/vector"
)

// Vectors are stored in Badger, the source of truth, keyed by embedding
// space and chunk content hash:
//
//	v/<space:8><hash:8>  → float32 little-endian components
//	m/vectors            → vectorMeta (JSON): the active space, and the
//	                       space being built when the signature changed
//
// A space is identified by the first 8 bytes of the SHA-256 of the
// embedder's signature (model, dimensions, prefixes, ...): vectors of two
// spaces are never compared. Vectors are keyed by chunk text, not by chunk,
// so a renamed note or an unchanged section of an edited one reuses its
// vectors, and identical chunks share one.
//
// Each loaded space is served from an in-memory vector.Index; a snapshot of
// it is saved next to the store on Close and reconciled with the stored
// keys at load (vectors_snapshot.go).
const nsVector = 'v'

var keyVectorMeta = []byte("m/vectors")

type vectorMeta struct {
	Active   string `json:"active,omitempty"`   // signature of the serving space
	Building string `json:"building,omitempty"` // signature being embedded for a swap
}

// SpaceID derives the id of the embedding space of a signature.
func SpaceID(signature string) uint64 {
	sum := sha256.Sum256([]byte(signature))
	return binary.BigEndian.Uint64(sum[:8])
}

func vectorKey(space, hash uint64) []byte {
	k := make([]byte, 18)
	k[0], k[1] = nsVector, '/'
	binary.BigEndian.PutUint64(k[2:], space)
	binary.BigEndian.PutUint64(k[10:], hash)
	return k
}

func vectorPrefix(space uint64) []byte { return vectorKey(space, 0)[:10] }

func encodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

func decodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 || len(b) == 0 {
		return nil, errCorrupt
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// space is one embedding space loaded in memory.
type space struct {
	id   uint64
	sig  string
	dims int
	idx  vector.Index
	have map[uint64]struct{} // hashes with a vector in idx
	note string              // how it was loaded, for status
	// dirty is set when idx changed since its snapshot was written.
	dirty bool
}

// vectorState is the store's vector side.
type vectorState struct {
	mu       sync.RWMutex
	active   *space
	building *space
	meta     vectorMeta
}

// newVectorIndex is the one place that picks the implementation: exact
// search below the size threshold, HNSW above (index/vector).
func newVectorIndex(dims int) vector.Index { return vector.NewAuto(dims, vector.AutoOptions{}) }

func (s *Store) readVectorMeta() (vectorMeta, error) {
	var m vectorMeta
	err := s.db.View(func(txn *badger.Txn) error {
		it, err := txn.Get(keyVectorMeta)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return it.Value(func(v []byte) error { return json.Unmarshal(v, &m) })
	})
	return m, err
}

func (s *Store) writeVectorMeta(txn *badger.Txn, m vectorMeta) error {
	b, _ := json.Marshal(m)
	return txn.Set(keyVectorMeta, b)
}

// UseEmbedder tells the store which embedding space the configured embedder
// produces (its signature and dimensions). When it is the stored active
// space, that space is loaded. When another space is active, the active one
// keeps serving (for an embedder of its signature, if one is configured)
// while the new one is built in the background; PutVectors swaps them when
// every chunk has a vector in the new space. An empty signature unloads
// nothing and builds nothing: only a previously active space is loaded.
func (s *Store) UseEmbedder(signature string, dims int) error {
	v := &s.vecs
	v.mu.Lock()
	defer v.mu.Unlock()
	meta, err := s.readVectorMeta()
	if err != nil {
		return fmt.Errorf("index: vector meta: %w", err)
	}
	v.meta = meta
	if meta.Active == "" && signature != "" {
		meta.Active = signature
		if err := s.update(0, func(txn *badger.Txn) error { return s.writeVectorMeta(txn, meta) }); err != nil {
			return err
		}
		v.meta = meta
	}
	if meta.Active != "" && (v.active == nil || v.active.sig != meta.Active) {
		d := dims
		if meta.Active != signature {
			d = 0 // learned from the stored vectors
		}
		sp, err := s.loadSpace(meta.Active, d)
		if err != nil {
			return err
		}
		v.active = sp
	}
	if signature == "" || signature == meta.Active {
		if meta.Building != "" {
			// A half-built space of an embedder that is no longer configured.
			if err := s.dropSpace(meta.Building); err != nil {
				return err
			}
			meta.Building = ""
			if err := s.update(0, func(txn *badger.Txn) error { return s.writeVectorMeta(txn, meta) }); err != nil {
				return err
			}
			v.meta = meta
		}
		v.building = nil
		return nil
	}
	if meta.Building != "" && meta.Building != signature {
		if err := s.dropSpace(meta.Building); err != nil {
			return err
		}
	}
	meta.Building = signature
	if err := s.update(0, func(txn *badger.Txn) error { return s.writeVectorMeta(txn, meta) }); err != nil {
		return err
	}
	v.meta = meta
	sp, err := s.loadSpace(signature, dims)
	if err != nil {
		return err
	}
	v.building = sp
	return s.swapIfComplete()
}

// swapIfComplete swaps in the space being built when every live chunk has
// a vector in it — also when deletes, not new vectors, completed it.
// Callers hold vecs.mu.
func (s *Store) swapIfComplete() error {
	if sp := s.vecs.building; sp != nil && s.complete(sp) {
		return s.swapLocked()
	}
	return nil
}

// dropSpace deletes a space's stored vectors and snapshot.
func (s *Store) dropSpace(sig string) error {
	id := SpaceID(sig)
	s.removeSnapshot(id)
	if err := s.disk.check(0); err != nil {
		return err
	}
	return s.db.DropPrefix(vectorPrefix(id))
}

// PendingChunk is a chunk whose text has no vector in the space being
// filled.
type PendingChunk struct {
	Hash uint64
	Ref  ChunkRef
}

// PendingVectors returns up to limit chunks (one per distinct text) that
// still need a vector in the target space — the space being built after a
// signature change, else the active one — with that space's signature.
// total counts all of them.
func (s *Store) PendingVectors(limit int) (sig string, out []PendingChunk, total int) {
	v := &s.vecs
	v.mu.RLock()
	target := v.building
	if target == nil {
		target = v.active
	}
	if target == nil {
		v.mu.RUnlock()
		return "", nil, 0
	}
	sig = target.sig
	have := target.have
	lv := s.view()
	seen := make(map[uint64]bool)
	lv.EachChunk(func(id uint64, ord uint32, h uint64) bool {
		if _, ok := have[h]; ok || seen[h] {
			return true
		}
		seen[h] = true
		total++
		if len(out) < limit {
			out = append(out, PendingChunk{Hash: h, Ref: ChunkRef{Doc: DocID(id), Ord: ord}})
		}
		return true
	})
	lv.Release()
	building := v.building != nil
	v.mu.RUnlock()
	if total == 0 && building {
		// Deletes may have completed the new space: nothing is left to
		// embed, so it takes over now.
		v.mu.Lock()
		if err := s.swapIfComplete(); err != nil {
			s.log.Warn("could not swap vector spaces", "err", err)
		}
		sig = ""
		if sp := v.active; sp != nil {
			sig = sp.sig
		}
		v.mu.Unlock()
	}
	return sig, out, total
}
