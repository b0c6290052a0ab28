package segment

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"sort"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Segment is an immutable segment over its bytes (heap or mmap). Readers
// never trust a length or offset: a corrupt segment gives zero values or
// ErrCorrupt, never a panic (Open checks the section table; the postings
// readers bound every read).
type Segment struct {
	b      []byte
	sec    [numSections][]byte
	notes  uint32
	chunks uint32
	terms  uint32
	keys   uint32

	sumBody, sumHead, sumTitle uint64
	sumNote                    [NoteFields]uint64

	name     string // file name when flushed; "" in memory
	size     int64
	release  func() error // unmaps a mapped segment
	refs     atomic.Int32
	lens     weightedTable[float64]  // the notes' weighted lengths (score.go)
	clens    weightedTable[chunkLen] // the chunks' notes and weighted lengths (score.go)
	resolved resolvedKeys            // anchor target keys resolved (anchors.go)
	idDir    lazyIDDir               // where ids start in the id index (iddir.go)
	// num numbers the segments opened in this process (from 1): where a
	// note was found stays meaningful from one view to the next.
	num uint32
}

// segmentNums numbers segments (Segment.num).
var segmentNums atomic.Uint32

// Open checks a segment's header and section table; it does not read the
// sections (see Verify).
func Open(b []byte) (*Segment, error) {
	if len(b) < headerSize || string(b[:8]) != magic {
		return nil, corrupt("bad magic")
	}
	if v := le.Uint32(b[hVersion:]); v != version {
		return nil, corrupt("version %d", v)
	}
	s := &Segment{b: b, size: int64(len(b)), num: segmentNums.Add(1)}
	s.notes, s.chunks = le.Uint32(b[hNotes:]), le.Uint32(b[hChunks:])
	s.terms, s.keys = le.Uint32(b[hTerms:]), le.Uint32(b[hKeys:])
	s.sumBody, s.sumHead, s.sumTitle = le.Uint64(b[hSumBody:]), le.Uint64(b[hSumHead:]), le.Uint64(b[hSumTitle:])
	for f := range NoteFields {
		s.sumNote[f] = le.Uint64(b[hSumNote+8*f:])
	}
	for i := range numSections {
		off, n := le.Uint64(b[hSections+16*i:]), le.Uint64(b[hSections+16*i+8:])
		if off < headerSize || off > uint64(len(b)) || n > uint64(len(b))-off {
			return nil, corrupt("section %d out of range", i)
		}
		s.sec[i] = b[off : off+n : off+n]
	}
	want := map[int]uint64{secNoteRows: uint64(s.notes) * noteRowSize, secIDIndex: uint64(s.notes) * idRowSize,
		secChunkRows: uint64(s.chunks) * chunkRowSize, secHashIndex: uint64(s.chunks) * hashRowSize,
		secTermOffs: uint64(s.terms) * 4, secKeyOffs: uint64(s.keys) * 4}
	for i, n := range want {
		if uint64(len(s.sec[i])) != n {
			return nil, corrupt("section %d has %d bytes, want %d", i, len(s.sec[i]), n)
		}
	}
	return s, nil
}

// Verify checks the segment's checksum (reads all of it).
func (s *Segment) Verify() error {
	if crc32.Checksum(s.b[headerSize:], castagnoli) != le.Uint32(s.b[hCRC:]) {
		return corrupt("checksum mismatch")
	}
	return nil
}

// Notes and Chunks are the segment's counts, deleted notes included.
func (s *Segment) Notes() int  { return int(s.notes) }
func (s *Segment) Chunks() int { return int(s.chunks) }

// Size is the segment's size in bytes.
func (s *Segment) Size() int64 { return s.size }

// Name is the segment's file name ("" for an in-memory segment).
func (s *Segment) Name() string { return s.name }

func (s *Segment) noteRow(i uint32) []byte {
	return s.sec[secNoteRows][int(i)*noteRowSize : int(i+1)*noteRowSize]
}

// NoteID is note i's id.
func (s *Segment) NoteID(i uint32) uint64 { return le.Uint64(s.noteRow(i)[nrID:]) }

// NoteChunks is note i's first chunk number and chunk count.
func (s *Segment) NoteChunks(i uint32) (first, n uint32) {
	r := s.noteRow(i)
	first, n = le.Uint32(r[nrFirst:]), le.Uint32(r[nrChunks:])
	if uint64(first)+uint64(n) > uint64(s.chunks) {
		return 0, 0
	}
	return first, n
}

// NoteMTime is note i's modification time (Unix seconds).
func (s *Segment) NoteMTime(i uint32) int64 { return int64(le.Uint64(s.noteRow(i)[nrMTime:])) }

// NoteFieldLen is note i's length in note field f.
func (s *Segment) NoteFieldLen(i uint32, f int) uint32 {
	return le.Uint32(s.noteRow(i)[nrFields+4*f:])
}

// noteData returns a decoder positioned at note i's data.
func (s *Segment) noteData(i uint32) decoder {
	off := le.Uint32(s.noteRow(i)[nrData:])
	d := s.sec[secNoteData]
	if int(off) > len(d) {
		return decoder{bad: true}
	}
	return decoder{b: d[off:]}
}

// forward calls fn with the dictionary number and df share of each term
// of note i.
func (s *Segment) forward(i uint32, fn func(term, df uint32)) {
	off := le.Uint32(s.noteRow(i)[nrFwd:])
	f := s.sec[secForward]
	if int(off) > len(f) {
		return
	}
	d := decoder{b: f[off:]}
	n := d.count()
	t := uint32(0)
	for range n {
		t += d.u32()
		df := d.u32()
		if d.bad {
			return
		}
		fn(t, df)
	}
}

// NoteVaultPath returns note i's vault and path as strings that point into
// the segment: valid only while the caller holds the view it came from,
// and never to be retained (filters compare them and forget them).
func (s *Segment) NoteVaultPath(i uint32) (vault, path string) {
	d := s.noteData(i)
	return d.strRef(), d.strRef()
}

// NoteInfo is a note's citation data, copied out of the segment.
type NoteInfo struct {
	ID       uint64
	Vault    string
	Path     string
	Title    string
	Tags     []string
	Aliases  []string
	MTime    int64
	Headings [][]string
}

// Info decodes note i's citation data. headings false skips the heading
// paths.
func (s *Segment) Info(i uint32, headings bool) NoteInfo {
	d := s.noteData(i)
	in := NoteInfo{ID: s.NoteID(i), MTime: s.NoteMTime(i)}
	in.Vault, in.Path, in.Title = d.str(), d.str(), d.str()
	in.Tags = d.strs()
	in.Aliases = d.strs()
	if headings {
		n := d.count()
		in.Headings = make([][]string, n)
		for k := range in.Headings {
			in.Headings[k] = d.strs()
		}
	}
	return in
}

// aliasData returns note i's data from its aliases on (past vault, path,
// title and tags).
func (s *Segment) aliasData(i uint32) decoder {
	d := s.noteData(i)
	d.skipStr()
	d.skipStr()
	d.skipStr()
	d.skipStrs()
	return d
}

// Aliases returns note i's aliases.
func (s *Segment) Aliases(i uint32) []string {
	d := s.aliasData(i)
	return d.strs()
}

// Heading returns note i's heading path of parent p (nil if none).
func (s *Segment) Heading(i uint32, p uint32) []string {
	d := s.aliasData(i)
	d.skipStrs()
	n := d.count()
	if int(p) >= n {
		return nil
	}
	for range p {
		for range d.count() {
			d.skipStr()
		}
	}
	return d.strs()
}

// FindNote returns the number of the note with id (the last one if a
// segment held it twice, which a valid segment never does).
func (s *Segment) FindNote(id uint64) (uint32, bool) {
	x := s.sec[secIDIndex]
	n := int(s.notes)
	k := s.idDir.of(x, n).find(x, n, id)
	if k < n && le.Uint64(x[k*idRowSize:]) == id {
		note := le.Uint32(x[k*idRowSize+8:])
		if note < s.notes {
			return note, true
		}
	}
	return 0, false
}

// ChunkRow is a chunk's doc values.
type ChunkRow struct {
	Note, Ord, Parent, LineStart, LineEnd uint32
	Body, Head                            uint32
	Hash                                  uint64
}

func (s *Segment) chunkRow(c uint32) []byte {
	return s.sec[secChunkRows][int(c)*chunkRowSize : int(c+1)*chunkRowSize]
}

// Chunk returns chunk c's doc values.
func (s *Segment) Chunk(c uint32) ChunkRow {
	r := s.chunkRow(c)
	note := le.Uint32(r[crNote:])
	var ord uint32
	if note < s.notes {
		first, _ := s.NoteChunks(note)
		ord = c - first
	}
	return ChunkRow{Note: note, Ord: ord, Parent: le.Uint32(r[crParent:]),
		LineStart: le.Uint32(r[crLine0:]), LineEnd: le.Uint32(r[crLine1:]),
		Body: uint32(le.Uint16(r[crBody:])), Head: uint32(le.Uint16(r[crHead:])), Hash: le.Uint64(r[crHash:])}
}

// chunkNote is chunk c's note number.
func (s *Segment) chunkNote(c uint32) uint32 { return le.Uint32(s.chunkRow(c)[crNote:]) }

// ChunksByHash calls fn for every chunk whose text hash is h.
func (s *Segment) ChunksByHash(h uint64, fn func(chunk uint32)) {
	x := s.sec[secHashIndex]
	n := int(s.chunks)
	k := sort.Search(n, func(i int) bool { return le.Uint64(x[i*hashRowSize:]) >= h })
	for ; k < n && le.Uint64(x[k*hashRowSize:]) == h; k++ {
		if c := le.Uint32(x[k*hashRowSize+8:]); c < s.chunks {
			fn(c)
		}
	}
}

// termEntry is a term's dictionary entry.
type termEntry struct {
	ord                   uint32 // dictionary number
	df                    uint64
	nPost, postOff, posOf uint64
	nBlk, blkOff          uint64 // block bounds (blocks.go); none when nBlk is 0
	nNote, noteOff        uint64
	nAnchor, anchorOff    uint64
}

func (s *Segment) termAt(i int) ([]byte, decoder) {
	off := le.Uint32(s.sec[secTermOffs][4*i:])
	d := s.sec[secTermData]
	if uint64(off) > uint64(len(d)) {
		return nil, decoder{bad: true}
	}
	dec := decoder{b: d[off:]}
	return dec.bytes(), dec
}

// lookup finds term t.
func (s *Segment) lookup(t string) (termEntry, bool) {
	n := int(s.terms)
	tb := unsafe.Slice(unsafe.StringData(t), len(t))
	k := sort.Search(n, func(i int) bool {
		b, _ := s.termAt(i)
		return bytes.Compare(b, tb) >= 0
	})
	if k >= n {
		return termEntry{}, false
	}
	b, d := s.termAt(k)
	if !bytes.Equal(b, tb) {
		return termEntry{}, false
	}
	e := d.entry()
	e.ord = uint32(k)
	return e, !d.bad
}

func (d *decoder) entry() termEntry {
	var e termEntry
	e.df = d.uvarint()
	if e.nPost = d.uvarint(); e.nPost > 0 {
		e.postOff, e.posOf = d.uvarint(), d.uvarint()
		if e.nPost > blockSize {
			e.nBlk, e.blkOff = d.uvarint(), d.uvarint()
		}
	}
	if e.nNote = d.uvarint(); e.nNote > 0 {
		e.noteOff = d.uvarint()
	}
	if e.nAnchor = d.uvarint(); e.nAnchor > 0 {
		e.anchorOff = d.uvarint()
	}
	return e
}

// key returns anchor target key k.
func (s *Segment) key(k uint32) string { return strings.Clone(s.keyRef(k)) }

// keyRef returns anchor target key k as a string pointing into the
// segment: valid only while the caller holds the view it came from.
func (s *Segment) keyRef(k uint32) string {
	if k >= s.keys {
		return ""
	}
	off := le.Uint32(s.sec[secKeyOffs][4*k:])
	d := s.sec[secKeyData]
	if uint64(off) > uint64(len(d)) {
		return ""
	}
	dec := decoder{b: d[off:]}
	return dec.strRef()
}

// decoder reads varints and strings; after the first error it returns
// zero values and bad is set.
type decoder struct {
	b   []byte
	bad bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.bad, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) u32() uint32 {
	v := d.uvarint()
	if v > 1<<32-1 {
		d.bad, d.b = true, nil
		return 0
	}
	return uint32(v)
}

// count reads a number of items that each take at least one byte.
func (d *decoder) count() int {
	v := d.uvarint()
	if v > uint64(len(d.b)) {
		d.bad, d.b = true, nil
		return 0
	}
	return int(v)
}

func (d *decoder) bytes() []byte {
	n := d.count()
	if d.bad {
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) str() string { return string(d.bytes()) }

func (d *decoder) strRef() string {
	b := d.bytes()
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

func (d *decoder) skipStr() { d.bytes() }

// skipStrs skips a list of strings.
func (d *decoder) skipStrs() {
	for range d.count() {
		d.skipStr()
	}
}

func (d *decoder) strs() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

// noteDataRaw returns note i's encoded data (notes' data are laid out in
// note order).
func (s *Segment) noteDataRaw(i uint32) []byte {
	d := s.sec[secNoteData]
	start := int(le.Uint32(s.noteRow(i)[nrData:]))
	end := len(d)
	if i+1 < s.notes {
		end = int(le.Uint32(s.noteRow(i + 1)[nrData:]))
	}
	if start > end || end > len(d) {
		return nil
	}
	return d[start:end]
}
