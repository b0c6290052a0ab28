package segment

import (
	"sync/atomic"
)

// View is an immutable snapshot of the index: its segments with their
// deletions and the collection statistics. Searches and lookups read a
// View; writers publish a new one. A View must be released (Release) when
// the reader is done; its segments stay mapped until then.
type View struct {
	segs  []*segState // oldest first
	stats Stats
	refs  atomic.Int32
	onEnd func(*View)   // called when the last reference is released
	id    atomic.Uint64 // see uid
}

// viewIDs numbers views (uid).
var viewIDs atomic.Uint64

// uid returns a number no other view has (taken at its first call), by
// which what is located in a view can be kept for the searches of the
// same view.
func (v *View) uid() uint64 {
	if id := v.id.Load(); id != 0 {
		return id
	}
	v.id.CompareAndSwap(0, viewIDs.Add(1))
	return v.id.Load()
}

// segState is a segment in a view: its deletions and what they take back
// from the statistics.
type segState struct {
	seg *Segment
	del bitset // deleted notes; nil: none
	// delDF is the df share of deleted notes per term (dictionary number).
	delDF map[uint32]uint32
	live  uint32 // live notes
}

// Stats are the live collection's statistics.
type Stats struct {
	Notes, Chunks              int64
	SumBody, SumHead, SumTitle int64 // Σ over live chunks (title: of its note)
	SumNote                    [NoteFields]int64
}

func (st *Stats) addSegment(s *Segment, sign int64) {
	st.Notes += sign * int64(s.notes)
	st.Chunks += sign * int64(s.chunks)
	st.SumBody += sign * int64(s.sumBody)
	st.SumHead += sign * int64(s.sumHead)
	st.SumTitle += sign * int64(s.sumTitle)
	for f := range NoteFields {
		st.SumNote[f] += sign * int64(s.sumNote[f])
	}
}

// addNote adds (sign 1) or removes (-1) note i of s from the statistics.
func (st *Stats) addNote(s *Segment, i uint32, sign int64) {
	first, n := s.NoteChunks(i)
	st.Notes += sign
	st.Chunks += sign * int64(n)
	title := int64(le.Uint16(s.chunkRowTitle(i)))
	if n == 0 {
		title = 0
	}
	for c := first; c < first+n; c++ {
		r := s.chunkRow(c)
		st.SumBody += sign * int64(le.Uint16(r[crBody:]))
		st.SumHead += sign * int64(le.Uint16(r[crHead:]))
		st.SumTitle += sign * title
	}
	for f := range NoteFields {
		st.SumNote[f] += sign * int64(s.NoteFieldLen(i, f))
	}
}

// chunkRowTitle returns the title length bytes of note i's first chunk (or
// zeros).
func (s *Segment) chunkRowTitle(i uint32) []byte {
	first, n := s.NoteChunks(i)
	if n == 0 {
		return []byte{0, 0}
	}
	return s.chunkRow(first)[crTitle : crTitle+2]
}

// Stats returns the view's collection statistics.
func (v *View) Stats() Stats { return v.stats }

// Segments returns the number of segments in the view.
func (v *View) Segments() int { return len(v.segs) }

// Acquire adds a reference to v.
func (v *View) acquire() { v.refs.Add(1) }

// Release drops a reference; the last one lets its segments go.
func (v *View) Release() {
	if v.refs.Add(-1) == 0 && v.onEnd != nil {
		v.onEnd(v)
	}
}

// deleted reports whether note i of segment k is deleted.
func (ss *segState) deleted(i uint32) bool { return ss.del.has(i) }

// Ref locates a note in a view.
type Ref struct {
	seg  int
	note uint32
}

// Find locates the live note with id, newest segment first.
func (v *View) Find(id uint64) (Ref, bool) {
	for k := len(v.segs) - 1; k >= 0; k-- {
		ss := v.segs[k]
		if i, ok := ss.seg.FindNote(id); ok && !ss.deleted(i) {
			return Ref{k, i}, true
		}
	}
	return Ref{}, false
}

// Info returns a located note's citation data.
func (v *View) Info(r Ref, headings bool) NoteInfo { return v.segs[r.seg].seg.Info(r.note, headings) }

// Names returns a located note's vault, path and title, copied out of the
// segment.
func (v *View) Names(r Ref) (vault, path, title string) {
	d := v.segs[r.seg].seg.noteData(r.note)
	return d.str(), d.str(), d.str()
}

// Aliases returns a located note's aliases.
func (v *View) Aliases(r Ref) []string { return v.segs[r.seg].seg.Aliases(r.note) }

// Heading returns the heading path of a located note's parent p.
func (v *View) Heading(r Ref, p uint32) []string { return v.segs[r.seg].seg.Heading(r.note, p) }

// ChunkCount is a located note's number of chunks.
func (v *View) ChunkCount(r Ref) int {
	_, n := v.segs[r.seg].seg.NoteChunks(r.note)
	return int(n)
}

// Chunk returns the doc values of a located note's chunk ord.
func (v *View) Chunk(r Ref, ord uint32) (ChunkRow, bool) {
	s := v.segs[r.seg].seg
	first, n := s.NoteChunks(r.note)
	if ord >= n {
		return ChunkRow{}, false
	}
	return s.Chunk(first + ord), true
}

// EachNote calls fn for every live note until fn returns false. The vault
// and path strings are only valid during the call.
func (v *View) EachNote(fn func(r Ref, id uint64, vault, path string) bool) {
	for k, ss := range v.segs {
		for i := uint32(0); i < ss.seg.notes; i++ {
			if ss.deleted(i) {
				continue
			}
			vault, path := ss.seg.NoteVaultPath(i)
			if !fn(Ref{k, i}, ss.seg.NoteID(i), vault, path) {
				return
			}
		}
	}
}

// MTime and Tags of a located note.
func (v *View) MTime(r Ref) int64 { return v.segs[r.seg].seg.NoteMTime(r.note) }

// ChunksByHash calls fn with the note and ordinal of every live chunk whose
// text hash is h.
func (v *View) ChunksByHash(h uint64, fn func(id uint64, ord uint32)) {
	for _, ss := range v.segs {
		s := ss.seg
		s.ChunksByHash(h, func(c uint32) {
			note := s.chunkNote(c)
			if note >= s.notes || ss.deleted(note) {
				return
			}
			first, _ := s.NoteChunks(note)
			fn(s.NoteID(note), c-first)
		})
	}
}

// bitset is a set of note numbers; nil is empty. Views share bitsets, so
// they are copied before a change (with).
type bitset []uint64

func (b bitset) has(i uint32) bool {
	w := int(i >> 6)
	return w < len(b) && b[w]&(1<<(i&63)) != 0
}

// clone returns a copy of b with room for n notes.
func (b bitset) clone(n uint32) bitset {
	c := make(bitset, max(int(n+63)>>6, len(b)))
	copy(c, b)
	return c
}

// set adds i; b must have room (clone).
func (b bitset) set(i uint32) { b[i>>6] |= 1 << (i & 63) }

// EachChunk calls fn for every live chunk (note id, ordinal, text hash)
// until fn returns false.
func (v *View) EachChunk(fn func(id uint64, ord uint32, hash uint64) bool) {
	for _, ss := range v.segs {
		s := ss.seg
		for i := uint32(0); i < s.notes; i++ {
			if ss.deleted(i) {
				continue
			}
			id := s.NoteID(i)
			first, n := s.NoteChunks(i)
			for c := first; c < first+n; c++ {
				if !fn(id, c-first, le.Uint64(s.chunkRow(c)[crHash:])) {
					return
				}
			}
		}
	}
}

// HasHash reports whether some live chunk's text hash is h.
func (v *View) HasHash(h uint64) bool {
	found := false
	for _, ss := range v.segs {
		s := ss.seg
		s.ChunksByHash(h, func(c uint32) {
			if n := s.chunkNote(c); !found && n < s.notes && !ss.deleted(n) {
				found = true
			}
		})
		if found {
			return true
		}
	}
	return false
}
