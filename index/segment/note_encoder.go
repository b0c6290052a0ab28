package segment

import (
	"bytes"
	"encoding/binary"
)

// A NoteEncoder writes a note's record, the bytes EncodeNote writes, with
// its terms given one at a time in order: the index builds a note's terms
// straight into its record (and the note's TermRecord), never into Terms.
// EncodeNote writes every record through one, so both are the same bytes.
type NoteEncoder struct {
	b     []byte
	terms int // where the terms start in b
	prev  string
	last  uint32 // the current term's last posting's ordinal
	keys  []uint32
}

// Begin starts the record of n, appended to b, with nt terms to follow
// (n's Terms and Anchors are not read).
func (e *NoteEncoder) Begin(b []byte, n *Note, nt int) {
	b = e.head(b, n)
	e.terms = len(b)
	e.b = binary.AppendUvarint(b, uint64(nt))
	e.prev, e.keys = "", make([]uint32, 0, nt)
}

// head appends the encoding of n up to its terms.
func (e *NoteEncoder) head(b []byte, n *Note) []byte {
	b = append(b, noteFormat)
	b = binary.LittleEndian.AppendUint64(b, n.ID)
	b = appendStr(b, n.Vault)
	b = appendStr(b, n.Path)
	b = appendStr(b, n.Title)
	b = appendStrs(b, n.Tags)
	b = appendStrs(b, n.Aliases)
	b = binary.AppendVarint(b, n.MTime)
	b = append(b, n.Lang)
	b = binary.AppendUvarint(b, uint64(len(n.Headings)))
	for _, h := range n.Headings {
		b = appendStrs(b, h)
	}
	for _, l := range n.FieldLen {
		b = binary.AppendUvarint(b, uint64(l))
	}
	b = binary.AppendUvarint(b, uint64(len(n.Chunks)))
	for _, c := range n.Chunks {
		for _, v := range [...]uint32{c.Parent, c.LineStart, c.LineEnd, c.Body, c.Head} {
			b = binary.AppendUvarint(b, uint64(v))
		}
		b = binary.LittleEndian.AppendUint64(b, c.Hash)
	}
	return b
}

// Term starts the next term (texts ascending), with its Key, note-field
// frequencies and number of postings, which Posting then gives.
func (e *NoteEncoder) Term(text string, key uint32, note *[NoteFields]uint32, postings int) {
	p := commonPrefix(e.prev, text)
	b := binary.AppendUvarint(e.b, uint64(p))
	b = appendStr(b, text[p:])
	e.prev = text
	for _, f := range note {
		b = binary.AppendUvarint(b, uint64(f))
	}
	e.b = binary.AppendUvarint(b, uint64(postings))
	e.last = 0
	e.keys = append(e.keys, key)
}

// Posting adds the current term's next posting (ordinals ascending): its
// heading frequency and body positions (ascending).
func (e *NoteEncoder) Posting(ord, head uint32, pos []uint32) {
	b := binary.AppendUvarint(e.b, uint64(ord-e.last))
	e.last = ord
	b = binary.AppendUvarint(b, uint64(head))
	b = binary.AppendUvarint(b, uint64(len(pos)))
	lp := uint32(0)
	for _, x := range pos {
		if d := x - lp; d < 0x80 {
			b = append(b, byte(d))
		} else {
			b = binary.AppendUvarint(b, uint64(d))
		}
		lp = x
	}
	e.b = b
}

// End appends the anchors and returns the record, its terms (a TermRecord)
// and their Keys in order.
func (e *NoteEncoder) End(anchors []Anchor) (record, terms []byte, keys []uint32) {
	end := len(e.b)
	record = appendAnchors(e.b, anchors)
	keys = e.keys
	e.b, e.prev, e.keys = nil, "", nil
	return record, record[e.terms:end:end], keys
}

// EndOwned is End for an encoder begun on a scratch buffer: the record is
// copied out into a slice of exactly its length (terms a part of it), and
// the buffer, as far as it grew, is handed back empty for the next Begin.
// A caller that encodes one note after another so allocates each record
// once, at its size, rather than at an estimate of it (the index's was
// about three times the record: 0.5 GB of a cold index's 5.5 GB of
// allocations on the scale benchmark's 10× vault).
func (e *NoteEncoder) EndOwned(anchors []Anchor) (record, terms []byte, keys []uint32, scratch []byte) {
	at := e.terms
	buf, inBuf, keys := e.End(anchors)
	record = bytes.Clone(buf)
	n := len(inBuf)
	return record, record[at : at+n : at+n], keys, buf[:0]
}

func appendAnchors(b []byte, anchors []Anchor) []byte {
	b = binary.AppendUvarint(b, uint64(len(anchors)))
	for _, a := range anchors {
		b = appendStr(b, a.Target)
		b = binary.AppendUvarint(b, uint64(len(a.Terms)))
		for _, t := range a.Terms {
			b = appendStr(b, t.Text)
			b = binary.AppendUvarint(b, uint64(t.Link))
			b = binary.AppendUvarint(b, uint64(t.Context))
		}
	}
	return b
}
