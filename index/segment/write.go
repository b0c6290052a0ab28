package segment

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"slices"
)

// writer lays out a segment. Notes and their chunks are added first, in
// order; then terms, in sorted order, each with its postings; finish
// returns the segment's bytes.
// yieldSteps is how many postings, terms and notes a writer lays out
// between calls of its yield: well under a millisecond of a large merge's
// or bulk segment's work (the commonest terms of a large vault have a
// million postings each, so terms alone are too coarse a step).
const yieldSteps = 4096

type writer struct {
	// yield, if set, is called every yieldSteps steps of a large build or
	// merge (Options.Yield).
	yield    func()
	steps    int
	sec      [numSections][]byte
	notes    uint32
	chunks   uint32
	terms    uint32
	sumBody  uint64
	sumHead  uint64
	sumTitle uint64
	sumNote  [NoteFields]uint64
	ids      []idRow
	hashes   []hashRow
	keys     map[string]uint32
	fwd      [][]fwdEntry // by note: (term, df share), in term order
	noteBody []uint32     // by note: its chunks' body lengths summed (blocks.go)

	// the term being written
	termStart  [4]int // offsets in postings, positions, notePosts, anchorPosts
	nPost      uint32
	nNote      uint32
	nAnchor    uint32
	lastChunk  uint32
	lastNote   uint32
	lastSource uint32
	posts      []postInfo // its chunk postings, for writeBlocks
}

// postInfo is what writeBlocks needs of a chunk posting just written: its
// chunk and frequencies, and where it ends in the term's postings and
// positions.
type postInfo struct {
	chunk, body, head uint32
	postEnd, posEnd   uint32
}

type fwdEntry struct {
	term, df uint32
}

type idRow struct {
	id   uint64
	note uint32
}

type hashRow struct {
	hash  uint64
	chunk uint32
}

func newWriter() *writer { return &writer{keys: make(map[string]uint32)} }

// noteMeta is a note's row and data without its terms.
type noteMeta struct {
	id                 uint64
	vault, path, title string
	tags, aliases      []string
	mtime              int64
	headings           [][]string
	fieldLen           [NoteFields]uint32
	nChunks            uint32
}

// addNote appends a note's row and data; its chunks follow with addChunk.
// It returns the note's number.
func (w *writer) addNote(m *noteMeta) uint32 {
	n := w.notes
	w.notes++
	d := &w.sec[secNoteData]
	off := len(*d)
	*d = appendStr(*d, m.vault)
	*d = appendStr(*d, m.path)
	*d = appendStr(*d, m.title)
	*d = appendStrs(*d, m.tags)
	*d = appendStrs(*d, m.aliases)
	*d = binary.AppendUvarint(*d, uint64(len(m.headings)))
	for _, h := range m.headings {
		*d = appendStrs(*d, h)
	}
	var row [noteRowSize]byte
	le.PutUint64(row[nrID:], m.id)
	le.PutUint32(row[nrFirst:], w.chunks)
	le.PutUint32(row[nrChunks:], m.nChunks)
	le.PutUint32(row[nrData:], uint32(off))
	le.PutUint64(row[nrMTime:], uint64(m.mtime))
	for f := range NoteFields {
		le.PutUint32(row[nrFields+4*f:], m.fieldLen[f])
		w.sumNote[f] += uint64(m.fieldLen[f])
	}
	w.sec[secNoteRows] = append(w.sec[secNoteRows], row[:]...)
	w.ids = append(w.ids, idRow{m.id, n})
	w.fwd = append(w.fwd, nil)
	w.sumTitle += uint64(clamp16(m.fieldLen[FieldTitle])) * uint64(m.nChunks)
	return n
}

// addChunk appends a chunk row of note, whose title has length title.
func (w *writer) addChunk(note, title uint32, c *Chunk) uint32 {
	n := w.chunks
	w.chunks++
	var row [chunkRowSize]byte
	le.PutUint32(row[crNote:], note)
	le.PutUint16(row[crTitle:], clamp16(title))
	le.PutUint32(row[crParent:], c.Parent)
	le.PutUint32(row[crLine0:], c.LineStart)
	le.PutUint32(row[crLine1:], c.LineEnd)
	le.PutUint16(row[crBody:], clamp16(c.Body))
	le.PutUint16(row[crHead:], clamp16(c.Head))
	le.PutUint64(row[crHash:], c.Hash)
	w.sec[secChunkRows] = append(w.sec[secChunkRows], row[:]...)
	w.hashes = append(w.hashes, hashRow{c.Hash, n})
	w.sumBody += uint64(clamp16(c.Body))
	w.sumHead += uint64(clamp16(c.Head))
	return n
}

// key returns the number of an anchor target key, adding it if new.
func (w *writer) key(k string) uint32 {
	if i, ok := w.keys[k]; ok {
		return i
	}
	i := uint32(len(w.keys))
	w.keys[k] = i
	w.sec[secKeyOffs] = le.AppendUint32(w.sec[secKeyOffs], uint32(len(w.sec[secKeyData])))
	w.sec[secKeyData] = appendStr(w.sec[secKeyData], k)
	return i
}

// beginTerm starts the postings of the next term (terms come sorted).
func (w *writer) beginTerm() {
	w.termStart = [4]int{len(w.sec[secPostings]), len(w.sec[secPositions]), len(w.sec[secNotePosts]), len(w.sec[secAnchorPosts])}
	w.nPost, w.nNote, w.nAnchor = 0, 0, 0
	w.lastChunk, w.lastNote, w.lastSource = 0, 0, 0
	w.posts = w.posts[:0]
}

// posted records the chunk posting just written (posting, postingRaw).
func (w *writer) posted(chunk, body, head uint32) {
	w.posts = append(w.posts, postInfo{chunk, body, head,
		uint32(len(w.sec[secPostings]) - w.termStart[0]), uint32(len(w.sec[secPositions]) - w.termStart[1])})
}

// posting adds a chunk posting; chunks come in ascending order.
func (w *writer) posting(chunk, body, head uint32, pos []uint32) {
	p := &w.sec[secPostings]
	*p = binary.AppendUvarint(*p, uint64(chunk-w.lastChunk))
	w.lastChunk = chunk
	flag := uint64(0)
	if head > 0 {
		flag = 1
	}
	*p = binary.AppendUvarint(*p, uint64(body)<<1|flag)
	if head > 0 {
		*p = binary.AppendUvarint(*p, uint64(head))
	}
	if body > 0 {
		q := &w.sec[secPositions]
		last := uint32(0)
		for i := range int(body) {
			v := uint32(0)
			if i < len(pos) {
				v = pos[i]
			}
			*q = binary.AppendUvarint(*q, uint64(v-last))
			last = v
		}
	}
	w.posted(chunk, body, head)
	w.nPost++
}

// notePosting adds a note posting; notes come in ascending order.
func (w *writer) notePosting(note uint32, tf *[NoteFields]uint32) {
	w.step()
	p := &w.sec[secNotePosts]
	*p = binary.AppendUvarint(*p, uint64(note-w.lastNote))
	w.lastNote = note
	mask := byte(0)
	for f, v := range tf {
		if v != 0 {
			mask |= 1 << f
		}
	}
	*p = append(*p, mask)
	for _, v := range tf {
		if v != 0 {
			*p = binary.AppendUvarint(*p, uint64(v))
		}
	}
	w.nNote++
}

// anchorPosting adds an anchor posting of source note; sources come in
// ascending order.
func (w *writer) anchorPosting(source, key, link, ctx uint32) {
	w.step()
	p := &w.sec[secAnchorPosts]
	*p = binary.AppendUvarint(*p, uint64(source-w.lastSource))
	w.lastSource = source
	*p = binary.AppendUvarint(*p, uint64(key))
	*p = binary.AppendUvarint(*p, uint64(link))
	*p = binary.AppendUvarint(*p, uint64(ctx))
	w.nAnchor++
}

// noteTerm records that note holds the current term with share df of its
// df (call between beginTerm and endTerm, notes ascending).
func (w *writer) noteTerm(note, df uint32) {
	w.fwd[note] = append(w.fwd[note], fwdEntry{w.terms, df})
}

// endTerm writes the dictionary entry of the term whose postings were just
// added.
func (w *writer) endTerm(text string, df uint64) {
	if w.nPost == 0 && w.nNote == 0 && w.nAnchor == 0 {
		return // nothing recorded a forward entry for it
	}
	d := &w.sec[secTermData]
	w.sec[secTermOffs] = le.AppendUint32(w.sec[secTermOffs], uint32(len(*d)))
	*d = appendStr(*d, text)
	*d = binary.AppendUvarint(*d, df)
	*d = binary.AppendUvarint(*d, uint64(w.nPost))
	if w.nPost > 0 {
		*d = binary.AppendUvarint(*d, uint64(w.termStart[0]))
		*d = binary.AppendUvarint(*d, uint64(w.termStart[1]))
		if w.nPost > blockSize {
			nBlk, off := w.writeBlocks()
			*d = binary.AppendUvarint(*d, uint64(nBlk))
			*d = binary.AppendUvarint(*d, uint64(off))
		}
	}
	*d = binary.AppendUvarint(*d, uint64(w.nNote))
	if w.nNote > 0 {
		*d = binary.AppendUvarint(*d, uint64(w.termStart[2]))
	}
	*d = binary.AppendUvarint(*d, uint64(w.nAnchor))
	if w.nAnchor > 0 {
		*d = binary.AppendUvarint(*d, uint64(w.termStart[3]))
	}
	w.terms++
	w.step()
}

// step counts a unit of the writer's work — a posting, a term, a note —
// and calls yield after every yieldSteps of them.
func (w *writer) step() {
	if w.yield == nil {
		return
	}
	if w.steps++; w.steps == yieldSteps {
		w.steps = 0
		w.yield()
	}
}

// finish lays out the header and sections and returns the segment.
func (w *writer) finish() []byte {
	hdr := w.header()
	size := len(hdr)
	for _, s := range w.sec {
		size += len(s)
	}
	out := make([]byte, 0, size)
	out = append(out, hdr...)
	for _, s := range w.sec {
		out = append(out, s...)
	}
	return out
}

// writeTo writes the segment to f: the header, then the sections as they
// are (no copy of the whole segment in memory).
func (w *writer) writeTo(f io.Writer) error {
	if _, err := f.Write(w.header()); err != nil {
		return err
	}
	for _, s := range w.sec {
		if _, err := f.Write(s); err != nil {
			return err
		}
	}
	return nil
}

// header completes the sections (the sorted indexes and the forward
// lists) and returns the header that goes before them: counts, sums, the
// section table and the CRC-32C of the sections.
func (w *writer) header() []byte {
	slices.SortFunc(w.ids, func(a, b idRow) int {
		switch {
		case a.id < b.id:
			return -1
		case a.id > b.id:
			return 1
		}
		return int(a.note) - int(b.note)
	})
	for _, r := range w.ids {
		w.sec[secIDIndex] = le.AppendUint64(w.sec[secIDIndex], r.id)
		w.sec[secIDIndex] = le.AppendUint32(w.sec[secIDIndex], r.note)
	}
	slices.SortFunc(w.hashes, func(a, b hashRow) int {
		switch {
		case a.hash < b.hash:
			return -1
		case a.hash > b.hash:
			return 1
		}
		return int(a.chunk) - int(b.chunk)
	})
	for _, r := range w.hashes {
		w.sec[secHashIndex] = le.AppendUint64(w.sec[secHashIndex], r.hash)
		w.sec[secHashIndex] = le.AppendUint32(w.sec[secHashIndex], r.chunk)
	}
	w.writeForward()
	out := make([]byte, headerSize)
	copy(out, magic)
	le.PutUint32(out[hVersion:], version)
	le.PutUint32(out[hNotes:], w.notes)
	le.PutUint32(out[hChunks:], w.chunks)
	le.PutUint32(out[hTerms:], w.terms)
	le.PutUint32(out[hKeys:], uint32(len(w.keys)))
	le.PutUint64(out[hSumBody:], w.sumBody)
	le.PutUint64(out[hSumHead:], w.sumHead)
	le.PutUint64(out[hSumTitle:], w.sumTitle)
	for f := range NoteFields {
		le.PutUint64(out[hSumNote+8*f:], w.sumNote[f])
	}
	off := uint64(headerSize)
	crc := uint32(0)
	for i, s := range w.sec {
		le.PutUint64(out[hSections+16*i:], off)
		le.PutUint64(out[hSections+16*i+8:], uint64(len(s)))
		off += uint64(len(s))
		crc = crc32.Update(crc, castagnoli, s)
	}
	le.PutUint32(out[hCRC:], crc)
	return out
}

// writeForward lays out each note's term list and points its row at it.
func (w *writer) writeForward() {
	rows := w.sec[secNoteRows]
	f := &w.sec[secForward]
	for n, es := range w.fwd {
		le.PutUint32(rows[n*noteRowSize+nrFwd:], uint32(len(*f)))
		*f = binary.AppendUvarint(*f, uint64(len(es)))
		last := uint32(0)
		for _, e := range es {
			*f = binary.AppendUvarint(*f, uint64(e.term-last))
			*f = binary.AppendUvarint(*f, uint64(e.df))
			last = e.term
		}
	}
	w.fwd = nil
}

// postingRaw adds a chunk posting whose positions (body varints, delta
// coded) are already encoded in pos.
func (w *writer) postingRaw(chunk, body, head uint32, pos []byte) {
	w.step()
	p := &w.sec[secPostings]
	*p = binary.AppendUvarint(*p, uint64(chunk-w.lastChunk))
	w.lastChunk = chunk
	flag := uint64(0)
	if head > 0 {
		flag = 1
	}
	*p = binary.AppendUvarint(*p, uint64(body)<<1|flag)
	if head > 0 {
		*p = binary.AppendUvarint(*p, uint64(head))
	}
	w.sec[secPositions] = append(w.sec[secPositions], pos...)
	w.posted(chunk, body, head)
	w.nPost++
}

// addNoteRaw appends a note whose data (vault, path, title, tags, aliases,
// headings) is already encoded.
func (w *writer) addNoteRaw(id uint64, data []byte, mtime int64, fieldLen [NoteFields]uint32, nChunks uint32) uint32 {
	w.step()
	n := w.notes
	w.notes++
	var row [noteRowSize]byte
	le.PutUint64(row[nrID:], id)
	le.PutUint32(row[nrFirst:], w.chunks)
	le.PutUint32(row[nrChunks:], nChunks)
	le.PutUint32(row[nrData:], uint32(len(w.sec[secNoteData])))
	le.PutUint64(row[nrMTime:], uint64(mtime))
	for f := range NoteFields {
		le.PutUint32(row[nrFields+4*f:], fieldLen[f])
		w.sumNote[f] += uint64(fieldLen[f])
	}
	w.sec[secNoteData] = append(w.sec[secNoteData], data...)
	w.sec[secNoteRows] = append(w.sec[secNoteRows], row[:]...)
	w.ids = append(w.ids, idRow{id, n})
	w.fwd = append(w.fwd, nil)
	w.sumTitle += uint64(clamp16(fieldLen[FieldTitle])) * uint64(nChunks)
	return n
}

// addChunkRow appends a chunk row copied from another segment, of output
// note note.
func (w *writer) addChunkRow(note uint32, r []byte) {
	n := w.chunks
	w.chunks++
	var row [chunkRowSize]byte
	copy(row[:], r)
	le.PutUint32(row[crNote:], note)
	w.sec[secChunkRows] = append(w.sec[secChunkRows], row[:]...)
	w.hashes = append(w.hashes, hashRow{le.Uint64(row[crHash:]), n})
	w.sumBody += uint64(le.Uint16(row[crBody:]))
	w.sumHead += uint64(le.Uint16(row[crHead:]))
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrs(b []byte, ss []string) []byte {
	b = binary.AppendUvarint(b, uint64(len(ss)))
	for _, s := range ss {
		b = appendStr(b, s)
	}
	return b
}
