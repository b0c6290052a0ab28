package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragd/ragd/index/graph"
)

// The names snapshot keeps the graph's name keys and the notes they name,
// as they stood at a change of the journal, in one file written at Close.
// At Open, when the store is still at that change, lexical search resolves
// link targets (anchors) from it at once — a binary search in the file —
// instead of waiting for the graph's names, which are loaded from one n/
// record per note (seconds at a few hundred thousand notes). It serves
// until the names are loaded: no write reaches the graph or the segments
// before the whole graph is (applyMem waits for it), so until then the
// store's names are the snapshot's.
//
// Layout: magic, the change (uint64), the entries' count n (uint32); n
// entries sorted by key, each a uvarint key length, the key (vault, a NUL,
// the name key), a uvarint id count and the ids (uint64 each); n entry
// offsets (uint32 each); the CRC-32C of everything before it. Little
// endian.

var namesMagic = []byte("RAGDNMS1")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// namesGenSnapshot is resolveGen's answer while the snapshot serves
// (the graph's generations, which count changes, never reach it).
const namesGenSnapshot = math.MaxUint64

func (s *Store) namesPath() string { return filepath.Join(s.dir, "names.snap") }

// namesSnap is a names snapshot read into memory.
type namesSnap struct {
	b    []byte // entries
	offs []byte // n offsets into b
	n    int
}

// openNames reads the names snapshot if it was written at change seq; nil
// when there is none, or it is of another change (removed then: it can
// never serve again), or it is damaged.
func openNames(path string, seq uint64) (*namesSnap, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	const head = 8 + 8 + 4
	if len(b) < head+4 || !bytes.Equal(b[:8], namesMagic) {
		return nil, fmt.Errorf("index: names snapshot: bad header")
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, fmt.Errorf("index: names snapshot: bad checksum")
	}
	if at := binary.LittleEndian.Uint64(b[8:]); at != seq {
		os.Remove(path)
		return nil, nil
	}
	n := int(binary.LittleEndian.Uint32(b[16:]))
	if len(body)-head < 4*n {
		return nil, fmt.Errorf("index: names snapshot: %d entries do not fit", n)
	}
	snap := &namesSnap{b: body[:len(body)-4*n], offs: body[len(body)-4*n:], n: n}
	for i := range n {
		if off := snap.off(i); off < head || off >= len(snap.b) {
			return nil, fmt.Errorf("index: names snapshot: entry %d out of bounds", i)
		}
	}
	return snap, nil
}

func (n *namesSnap) off(i int) int { return int(binary.LittleEndian.Uint32(n.offs[4*i:])) }

// entry returns the key of entry i and what follows it; ok is false for a
// damaged entry.
func (n *namesSnap) entry(i int) (key, rest []byte, ok bool) {
	b := n.b[n.off(i):]
	l, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < l {
		return nil, nil, false
	}
	return b[k : k+int(l)], b[k+int(l):], true
}

// resolve returns the notes name names in vault, as graph.Graph.Resolve.
func (n *namesSnap) resolve(vault, name string) []uint64 {
	if len(name) > 0 && name[0] == '#' {
		return nil
	}
	key := vault + "\x00" + name
	lo, hi := 0, n.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		k, _, ok := n.entry(m)
		if !ok {
			return nil
		}
		if strings.Compare(string(k), key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == n.n {
		return nil
	}
	k, rest, ok := n.entry(lo)
	if !ok || string(k) != key {
		return nil
	}
	c, w := binary.Uvarint(rest)
	if w <= 0 || uint64(len(rest)-w)/8 < c {
		return nil
	}
	out := make([]uint64, c)
	for j := range out {
		out[j] = binary.LittleEndian.Uint64(rest[w+8*j:])
	}
	return out
}

// saveNames writes the names snapshot of the graph as it stands, which
// is the store's at change seq: the caller holds wmu, or no write has
// reached the graph yet (graph_load.go). Nothing is written when the graph
// lacks names, or the snapshot on disk is already of seq.
func (s *Store) saveNames(seq uint64) error {
	if !s.mem.namesWhole.Load() || s.namesAt.Load() == seq+1 {
		return nil // what is on disk, if anything, is checked by its change
	}
	b, offs, err := s.encodeNames(seq)
	if err != nil {
		return err
	}
	b = append(b, offs...)
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
	if err := writeFileAtomic(s.namesPath(), b); err != nil {
		return err
	}
	s.namesAt.Store(seq + 1)
	return nil
}

// encodeNames encodes the graph's names, sorted by vault and name key,
// and returns them with their offsets (names_snapshot.go's layout).
func (s *Store) encodeNames(seq uint64) (b, offs []byte, err error) {
	type entry struct {
		vault, name string
		ids         []graph.DocID
	}
	var es []entry
	s.mem.mu.RLock()
	defer s.mem.mu.RUnlock() // the ids are the graph's: encoded under the lock
	s.mem.graph.EachName(func(vault, name string, ids []graph.DocID) {
		if len(ids) > 0 {
			es = append(es, entry{vault, name, ids})
		}
	})
	// By vault, then name: the order of the keys "vault\x00name".
	slices.SortFunc(es, func(a, b entry) int {
		if c := strings.Compare(a.vault, b.vault); c != 0 {
			return c
		}
		return strings.Compare(a.name, b.name)
	})
	b = append(b, namesMagic...)
	b = binary.LittleEndian.AppendUint64(b, seq)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(es)))
	offs = make([]byte, 0, 4*len(es))
	for _, e := range es {
		if len(b) > math.MaxUint32 {
			return nil, nil, errors.New("index: names snapshot over 4 GiB")
		}
		offs = binary.LittleEndian.AppendUint32(offs, uint32(len(b)))
		b = binary.AppendUvarint(b, uint64(len(e.vault)+1+len(e.name)))
		b = append(append(append(b, e.vault...), 0), e.name...)
		b = binary.AppendUvarint(b, uint64(len(e.ids)))
		for _, id := range e.ids {
			b = binary.LittleEndian.AppendUint64(b, uint64(id))
		}
	}
	return b, offs, nil
}

// writeFileAtomic writes b to path: a temporary file, synced, renamed.
func writeFileAtomic(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".names-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
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
	return os.Rename(f.Name(), path)
}
