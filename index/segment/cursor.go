package segment

// cursor walks one query word's postings in one segment: its chunk
// postings (variants merged, no positions) and its note postings (one list
// per variant), so that a search can visit the segment note by note.
type cursor struct {
	chunks multiIter
	live   bool   // chunks is at a posting
	note   uint32 // the note of that posting, when noteOK
	noteOK bool
	notes  []noteIter
	nlive  []bool
}

// init places c at the start of word g's postings in seg; chunks false
// leaves the chunk postings out (a word whose idf is 0 scores nothing).
func (c *cursor) init(seg *Segment, es []termEntry, chunks bool) {
	c.live, c.noteOK = false, false
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
}

// stepChunk moves to the next chunk posting (a posting past the segment's
// chunks ends the list, as a corrupt one would).
func (c *cursor) stepChunk(seg *Segment) {
	c.noteOK = false
	c.live = c.chunks.next() && c.chunks.chunk < seg.chunks
}

// stepNote moves variant v's note postings on (a note past the segment's
// notes ends the list: they are in note order).
func (c *cursor) stepNote(seg *Segment, v int) {
	c.nlive[v] = c.notes[v].next() && c.notes[v].note < seg.notes
}

// chunkNote is the note of the current chunk posting.
func (c *cursor) chunkNote(seg *Segment) uint32 {
	if !c.noteOK {
		c.note, c.noteOK = seg.chunkNote(c.chunks.chunk), true
	}
	return c.note
}

// next is the first note numbered from or more that the word occurs in
// (in a chunk or a note field), the cursor moved to it; false when there
// is none. Postings of earlier notes are skipped (in a valid segment there
// are none: a search visits notes in order).
func (c *cursor) next(seg *Segment, from uint32) (uint32, bool) {
	n, ok := uint32(0), false
	for c.live {
		if m := c.chunkNote(seg); m < seg.notes && m >= from {
			n, ok = m, true
			break
		}
		c.stepChunk(seg) // a chunk of no note: corrupt, skipped
	}
	for v := range c.notes {
		for c.nlive[v] && c.notes[v].note < from {
			c.stepNote(seg, v)
		}
		if c.nlive[v] && (!ok || c.notes[v].note < n) {
			n, ok = c.notes[v].note, true
		}
	}
	return n, ok
}
