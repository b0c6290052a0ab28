package segment

import "math"

// none is a cursor's note when it has no more postings.
const none = math.MaxUint32

// cursor walks one query word's postings in one segment: its chunk
// postings (variants merged, no positions) and its note postings (one list
// per variant), so that a search can visit the segment note by note.
type cursor struct {
	chunks multiIter
	live   bool // chunks is at a posting
	notes  []noteIter
	nlive  []bool
	// noteMin is the smallest note the note postings are at (none: ended).
	noteMin uint32
	// at is, for a word whose notes are visited, the next note it occurs
	// in (none: no more); see seek.
	at uint32
}

// init places c at the start of word g's postings in seg; chunks false
// leaves the chunk postings out (a word whose idf is 0 scores nothing).
func (c *cursor) init(seg *Segment, es []termEntry, chunks bool) {
	c.live = false
	if chunks {
		c.chunks.init(seg, es)
		c.stepChunk(seg)
	}
	c.notes, c.nlive = c.notes[:0], c.nlive[:0]
	for _, e := range es {
		it := seg.notePostings(e)
		c.notes = append(c.notes, it)
		c.nlive = append(c.nlive, false)
		c.stepNote(seg, len(c.notes)-1)
	}
	c.minNote()
	c.at = 0
}

// stepChunk moves to the next chunk posting (a posting past the segment's
// chunks ends the list, as a corrupt one would).
func (c *cursor) stepChunk(seg *Segment) {
	c.live = c.chunks.next() && c.chunks.chunk < seg.chunks
}

// stepNote moves variant v's note postings on (a note past the segment's
// notes ends the list: they are in note order).
func (c *cursor) stepNote(seg *Segment, v int) {
	c.nlive[v] = c.notes[v].next() && c.notes[v].note < seg.notes
}

// minNote sets noteMin.
func (c *cursor) minNote() {
	c.noteMin = none
	for v, it := range c.notes {
		if c.nlive[v] && it.note < c.noteMin {
			c.noteMin = it.note
		}
	}
}

// seek sets at to the first note numbered from or more that the word
// occurs in (in a chunk or a note field), skipping the postings of earlier
// notes (in a valid segment there are none: notes are visited in order).
func (c *cursor) seek(seg *Segment, from uint32) {
	c.at = none
	for c.live {
		if m := seg.chunkNote(c.chunks.chunk); m < seg.notes && m >= from {
			c.at = m
			break
		}
		c.stepChunk(seg) // a chunk of an earlier note or of none: corrupt
	}
	if c.noteMin < from {
		for v := range c.notes {
			for c.nlive[v] && c.notes[v].note < from {
				c.stepNote(seg, v)
			}
		}
		c.minNote()
	}
	c.at = min(c.at, c.noteMin)
}
