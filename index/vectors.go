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
// keys at load (vectors_snapshot.go). Its backlog — live chunk texts without
// a vector — is kept as documents and vectors are written
// (vectors_cover.go).
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

// space is one embedding space loaded in memory. id and sig never change;
// dims and idx are set once, with the first vector, under vecs.mu; note is
// guarded by vecs.mu, dirty by vecs.wmu, and cov by memIndex.mu.
type space struct {
	id   uint64
	sig  string
	dims int
	idx  vector.Index
	cov  *cover // which texts have a vector in idx, which live ones lack one
	note string // how it was loaded, for status
	// dirty is set when idx changed since its snapshot was written.
	dirty bool
}

// vectorState is the store's vector side.
type vectorState struct {
	// wmu serialises the vector writers (UseEmbedder, PutVectors,
	// CollectVectors, SaveVectorSnapshots, swaps) and is held across their
	// Badger and file I/O. Searches never take it.
	wmu sync.Mutex
	// mu guards active, building and meta, which change only with wmu held
	// too (so a writer reads them under wmu alone), and is held only to
	// read or swap them, never across I/O.
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

func (s *Store) writeVectorMeta(m vectorMeta) error {
	b, _ := json.Marshal(m)
	return s.update(int64(len(b)), func(txn *badger.Txn) error { return txn.Set(keyVectorMeta, b) })
}

// setSpaces publishes the spaces and meta (vecs.wmu held) and stops keeping
// the backlog of a space that is no longer loaded.
func (s *Store) setSpaces(active, building *space, meta vectorMeta) {
	v := &s.vecs
	v.mu.Lock()
	old := []*space{v.active, v.building}
	v.active, v.building, v.meta = active, building, meta
	v.mu.Unlock()
	for _, sp := range old {
		if sp != nil && sp != active && sp != building {
			s.mem.uncover(sp.id)
		}
	}
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
	v.wmu.Lock()
	defer v.wmu.Unlock()
	meta, err := s.readVectorMeta()
	if err != nil {
		return fmt.Errorf("index: vector meta: %w", err)
	}
	if meta.Active == "" && signature != "" {
		meta.Active = signature
		if err := s.writeVectorMeta(meta); err != nil {
			return err
		}
	}
	active, building := v.active, v.building
	if meta.Active != "" && (active == nil || active.sig != meta.Active) {
		d := dims
		if meta.Active != signature {
			d = 0 // learned from the stored vectors
		}
		if active, err = s.loadSpace(meta.Active, d); err != nil {
			return err
		}
	}
	if signature == "" || signature == meta.Active {
		if meta.Building != "" {
			// A half-built space of an embedder that is no longer configured.
			if err := s.dropSpace(meta.Building); err != nil {
				return err
			}
			meta.Building = ""
			if err := s.writeVectorMeta(meta); err != nil {
				return err
			}
		}
		s.setSpaces(active, nil, meta)
		return nil
	}
	if meta.Building != "" && meta.Building != signature {
		if err := s.dropSpace(meta.Building); err != nil {
			return err
		}
	}
	meta.Building = signature
	if err := s.writeVectorMeta(meta); err != nil {
		return err
	}
	if building == nil || building.sig != signature {
		if building, err = s.loadSpace(signature, dims); err != nil {
			return err
		}
	}
	s.setSpaces(active, building, meta)
	return s.swapIfComplete()
}

// swapIfComplete swaps in the space being built when every live chunk has
// a vector in it — also when deletes, not new vectors, completed it.
// Callers hold vecs.wmu.
func (s *Store) swapIfComplete() error {
	if sp := s.vecs.building; sp != nil && s.complete(sp) {
		return s.swapLocked()
	}
	return nil
}

// dropSpace deletes a space's stored vectors and snapshot. Callers hold
// vecs.wmu.
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

// target is the space being filled: the one being built after a signature
// change (building is then true), else the active one (nil if none).
func (v *vectorState) target() (sp *space, building bool) {
	v.mu.RLock()
	defer v.mu.RUnlock()
	if v.building != nil {
		return v.building, true
	}
	return v.active, false
}

// PendingVectors returns up to limit chunks (one per distinct text) that
// still need a vector in the target space — the space being built after a
// signature change, else the active one — with that space's signature.
// total counts all of them. It costs O(limit): the backlog is kept as
// documents and vectors are written.
func (s *Store) PendingVectors(limit int) (sig string, out []PendingChunk, total int) {
	v := &s.vecs
	target, building := v.target()
	if target == nil {
		return "", nil, 0
	}
	m := s.mem
	m.mu.RLock()
	total = len(target.cov.missing)
	var hashes []uint64
	for h := range target.cov.missing {
		if len(hashes) >= limit {
			break
		}
		hashes = append(hashes, h)
	}
	m.mu.RUnlock()
	lv := s.view()
	for _, h := range hashes {
		found := false
		lv.ChunksByHash(h, func(id uint64, ord uint32) {
			if !found {
				found = true
				out = append(out, PendingChunk{Hash: h, Ref: ChunkRef{Doc: DocID(id), Ord: ord}})
			}
		})
	}
	lv.Release()
	if total > 0 || !building {
		return target.sig, out, total
	}
	// Deletes may have completed the new space: nothing is left to embed,
	// so it takes over now.
	v.wmu.Lock()
	defer v.wmu.Unlock()
	if err := s.swapIfComplete(); err != nil {
		s.log.Warn("could not swap vector spaces", "err", err)
	}
	if t, _ := v.target(); t != nil {
		return t.sig, nil, 0
	}
	return "", nil, 0
}
