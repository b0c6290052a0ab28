package vector

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
)

// Snapshot format, all integers little-endian:
//
//	magic    8 bytes "ragdvec\n"
//	version  uint32 (snapshotVersion)
//	kind     uint8: 1 exact, 2 hnsw, 3 auto
//	payload  (per kind, below)
//	crc      uint32 CRC-32C (Castagnoli) of every byte before it
//
// exact:  dims u32, n u32, n × key u64, n·dims × f32
// hnsw:   dims, M, efConstruction, efSearch u32, seed i64, slots u32,
//
//	entry u32 (0xFFFFFFFF when empty), top level u32,
//	slots × (key u64, level u8, state u8 [0 free, 1 live, 2 tombstone]),
//	slots·dims × f32,
//	then for every non-free slot, layers 0..level: count u32, count × id u32
//
// auto:   threshold u32, exactScope u32, minSelectivity f64, inner kind u8,
//
//	inner payload (exact or hnsw)
//
// Load checks the checksum first, then every count, id, level, state, key
// and float, so a corrupt or truncated snapshot is an error, never a panic
// or a graph that panics later.
const (
	snapshotMagic   = "ragdvec\n"
	snapshotVersion = 1

	kindExact uint8 = 1
	kindHNSW  uint8 = 2
	kindAuto  uint8 = 3

	maxDims = 1 << 16
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt is wrapped by every error Load returns for a bad snapshot.
var ErrCorrupt = errors.New("vector: corrupt snapshot")

// encoder writes little-endian values and tracks the first error.
type encoder struct {
	w   *bufio.Writer
	buf [8]byte
	err error
}

func (e *encoder) write(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}
func (e *encoder) u8(v uint8) { e.buf[0] = v; e.write(e.buf[:1]) }
func (e *encoder) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.buf[:4], v)
	e.write(e.buf[:4])
}
func (e *encoder) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.buf[:8], v)
	e.write(e.buf[:8])
}
func (e *encoder) f32s(vs []float32) {
	for _, v := range vs {
		e.u32(math.Float32bits(v))
	}
}

// writeSnapshot frames payload with the header and checksum.
func writeSnapshot(w io.Writer, kind uint8, payload func(*encoder)) error {
	h := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<16)
	e := &encoder{w: bw}
	e.write([]byte(snapshotMagic))
	e.u32(snapshotVersion)
	e.u8(kind)
	payload(e)
	if e.err == nil {
		e.err = bw.Flush()
	}
	if e.err != nil {
		return fmt.Errorf("vector: writing snapshot: %w", e.err)
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], h.Sum32())
	if _, err := w.Write(sum[:]); err != nil {
		return fmt.Errorf("vector: writing snapshot: %w", err)
	}
	return nil
}

// Load reads a snapshot written by any Index's Save and returns the index
// it describes (*Exact, *HNSW or *Auto).
func Load(r io.Reader) (Index, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("vector: reading snapshot: %w", err)
	}
	const head = len(snapshotMagic) + 4 + 1
	if len(data) < head+4 {
		return nil, fmt.Errorf("%w: %d bytes is too short", ErrCorrupt, len(data))
	}
	if string(data[:len(snapshotMagic)]) != snapshotMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch (truncated or damaged)", ErrCorrupt)
	}
	d := &decoder{b: body[len(snapshotMagic):]}
	if v := d.u32(); v != snapshotVersion {
		return nil, fmt.Errorf("%w: unsupported version %d", ErrCorrupt, v)
	}
	idx := decodeKind(d, d.u8())
	if d.err == nil && len(d.b) != 0 {
		d.fail("%d trailing bytes", len(d.b))
	}
	if d.err != nil {
		return nil, d.err
	}
	return idx, nil
}

func decodeKind(d *decoder, kind uint8) Index {
	switch kind {
	case kindExact:
		if e := decodeExact(d); e != nil {
			return e
		}
	case kindHNSW:
		if h := decodeHNSW(d); h != nil {
			return h
		}
	case kindAuto:
		if a := decodeAuto(d); a != nil {
			return a
		}
	default:
		d.fail("unknown index kind %d", kind)
	}
	return nil
}

// decoder reads little-endian values from a byte slice; after the first
// error every read returns zero.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
	}
}

func (d *decoder) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b) {
		d.fail("truncated")
		return nil
	}
	out := d.b[:n]
	d.b = d.b[n:]
	return out
}

func (d *decoder) u8() uint8 {
	if b := d.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (d *decoder) u32() uint32 {
	if b := d.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (d *decoder) u64() uint64 {
	if b := d.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

// count reads a u32 count of items of at least minSize bytes each, failing
// when the rest of the snapshot could not hold them (so a corrupt count
// cannot cause a huge allocation).
func (d *decoder) count(minSize int, what string) int {
	n := int(d.u32())
	if d.err == nil && n*minSize > len(d.b) {
		d.fail("%s count %d exceeds the snapshot", what, n)
		return 0
	}
	return n
}

// f32s reads n finite floats into dst.
func (d *decoder) f32s(dst []float32) {
	b := d.take(4 * len(dst))
	if b == nil {
		return
	}
	for i := range dst {
		v := math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			d.fail("non-finite vector component")
			return
		}
		dst[i] = v
	}
}

func (d *decoder) dims() int {
	n := int(d.u32())
	if d.err == nil && (n <= 0 || n > maxDims) {
		d.fail("bad dimension %d", n)
	}
	return n
}

func (e *Exact) encode(enc *encoder) {
	enc.u32(uint32(e.dims))
	enc.u32(uint32(len(e.keys)))
	for _, k := range e.keys {
		enc.u64(k)
	}
	enc.f32s(e.vecs)
}

func decodeExact(d *decoder) *Exact {
	dims := d.dims()
	n := d.count(8+4*dims, "vector")
	if d.err != nil {
		return nil
	}
	e := NewExact(dims)
	e.keys = make([]Key, n)
	for i := range e.keys {
		e.keys[i] = d.u64()
		if _, dup := e.ids[e.keys[i]]; dup && d.err == nil {
			d.fail("duplicate key %d", e.keys[i])
		}
		e.ids[e.keys[i]] = i
	}
	e.vecs = make([]float32, n*dims)
	d.f32s(e.vecs)
	if d.err != nil {
		return nil
	}
	return e
}
