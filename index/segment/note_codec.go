package segment

import (
	"encoding/binary"
	"slices"
)

// noteFormat is the first byte of an encoded Note.
const noteFormat = 2 // 2: aliases after the tags

// EncodeNote appends n's binary encoding to b: varints throughout, strings
// as a length and bytes, terms prefix-compressed, positions delta-coded. A
// note whose terms are in TermRecord (Terms nil) has them copied from
// there.
func EncodeNote(b []byte, n *Note) []byte {
	var e NoteEncoder
	if n.Terms == nil && n.TermRecord != nil {
		b = e.head(slices.Grow(b, encodedSize(n)+len(n.TermRecord)), n)
		b = append(b, n.TermRecord...)
		return appendAnchors(b, n.Anchors)
	}
	e.Begin(slices.Grow(b, encodedSize(n)), n, len(n.Terms))
	for i := range n.Terms {
		t := &n.Terms[i]
		e.Term(t.Text, t.Key, &t.Note, len(t.Postings))
		for _, ps := range t.Postings {
			e.Posting(ps.Ord, ps.Head, ps.Pos)
		}
	}
	b, _, _ = e.End(n.Anchors)
	return b
}

// encodedSize is about the size of n's encoding (a little more), so that
// EncodeNote allocates once.
func encodedSize(n *Note) int {
	size := RecordSize(n)
	for i := range n.Terms {
		t := &n.Terms[i]
		size += len(t.Text) + 8
		for _, p := range t.Postings {
			size += 4 + 2*len(p.Pos)
		}
	}
	return size
}

// RecordSize is about the size of n's record but for its terms (Terms),
// for a caller that writes them through a NoteEncoder.
func RecordSize(n *Note) int {
	size := 64 + len(n.Vault) + len(n.Path) + len(n.Title) + 16*len(n.Chunks)
	for _, t := range n.Tags {
		size += len(t) + 2
	}
	for _, a := range n.Aliases {
		size += len(a) + 2
	}
	for _, h := range n.Headings {
		for _, s := range h {
			size += len(s) + 2
		}
	}
	for _, a := range n.Anchors {
		size += len(a.Target) + 2
		for _, t := range a.Terms {
			size += len(t.Text) + 4
		}
	}
	return size
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b), 255)
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// SetNoteID sets the id of an encoded note in place (records are encoded
// before the writer assigns ids).
func SetNoteID(b []byte, id uint64) {
	if len(b) >= 9 && b[0] == noteFormat {
		binary.LittleEndian.PutUint64(b[1:9], id)
	}
}

// DecodeNote decodes an EncodeNote value. A corrupt value gives an error
// wrapping ErrCorrupt, never a panic or a huge allocation.
func DecodeNote(b []byte) (*Note, error) {
	if len(b) < 9 || b[0] != noteFormat {
		return nil, corrupt("note record format")
	}
	n := &Note{ID: binary.LittleEndian.Uint64(b[1:9])}
	d := decoder{b: b[9:]}
	n.Vault, n.Path, n.Title = d.str(), d.str(), d.str()
	n.Tags = d.strs()
	n.Aliases = d.strs()
	mt, k := binary.Varint(d.b)
	if k <= 0 {
		return nil, corrupt("note mtime")
	}
	n.MTime, d.b = mt, d.b[k:]
	if len(d.b) == 0 {
		return nil, corrupt("note language")
	}
	n.Lang, d.b = d.b[0], d.b[1:]
	if h := d.count(); h > 0 {
		n.Headings = make([][]string, h)
		for i := range n.Headings {
			n.Headings[i] = d.strs()
		}
	}
	for f := range n.FieldLen {
		n.FieldLen[f] = d.u32()
	}
	if c := d.count(); c > 0 {
		n.Chunks = make([]Chunk, c)
		for i := range n.Chunks {
			ch := &n.Chunks[i]
			ch.Parent, ch.LineStart, ch.LineEnd, ch.Body, ch.Head = d.u32(), d.u32(), d.u32(), d.u32(), d.u32()
			if len(d.b) < 8 {
				return nil, corrupt("note chunk")
			}
			ch.Hash, d.b = binary.LittleEndian.Uint64(d.b), d.b[8:]
		}
	}
	nt := d.count()
	n.Terms = make([]Term, 0, nt)
	prev := ""
	for range nt {
		p := int(d.uvarint())
		rest := d.bytes()
		if p > len(prev) || d.bad {
			return nil, corrupt("note term")
		}
		t := Term{Text: prev[:p] + string(rest)}
		prev = t.Text
		for f := range t.Note {
			t.Note[f] = d.u32()
		}
		np := d.count()
		if np > 0 {
			t.Postings = make([]Posting, np)
		}
		last := uint32(0)
		for i := range t.Postings {
			ps := &t.Postings[i]
			last += d.u32()
			ps.Ord = last
			ps.Head = d.u32()
			npos := d.count()
			if npos > 0 {
				ps.Pos = make([]uint32, npos)
			}
			lp := uint32(0)
			for j := range ps.Pos {
				lp += d.u32()
				ps.Pos[j] = lp
			}
			ps.Body = uint32(npos)
		}
		if d.bad {
			return nil, corrupt("note postings")
		}
		n.Terms = append(n.Terms, t)
	}
	na := d.count()
	for range na {
		a := Anchor{Target: d.str()}
		nat := d.count()
		for range nat {
			a.Terms = append(a.Terms, AnchorTerm{Text: d.str(), Link: d.u32(), Context: d.u32()})
		}
		n.Anchors = append(n.Anchors, a)
	}
	if d.bad {
		return nil, corrupt("note record")
	}
	return n, nil
}
