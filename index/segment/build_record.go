package segment

import "slices"

// A note's terms reach the builder either as Terms or, from the index, as
// the bytes of its record (TermRecord): the same builder terms, postings,
// note postings and forward entries either way.

// addTermRecord is add's loop over the terms of n when they are in its
// TermRecord. The record delta-codes a posting's positions as the builder
// does, so they are copied as they are.
func (b *builder) addTermRecord(n *Note, first, ni uint32) {
	d := decoder{b: n.TermRecord}
	nt := d.count()
	chunks := uint32(len(n.Chunks))
	text := b.text[:0]
	for i := 0; i < nt; i++ {
		p := int(d.uvarint())
		suffix := d.bytes()
		if d.bad || p > len(text) {
			break // not a record the index wrote
		}
		text = append(text[:p], suffix...)
		var tf [NoteFields]uint32
		inNote := false
		for f := range tf {
			tf[f] = d.u32()
			inNote = inNote || tf[f] != 0
		}
		np := d.count()
		var key uint32
		if i < len(n.TermKeys) {
			key = n.TermKeys[i]
		}
		id := b.keyed(text, key)
		dfc := uint32(np)
		if inNote {
			dfc = chunks
		}
		b.df[id] += uint64(dfc)
		b.fwdTerm = append(b.fwdTerm, id)
		b.fwdDF = append(b.fwdDF, dfc)
		ord := uint32(0)
		for range np {
			ord += d.u32()
			head := d.u32()
			npos := d.count()
			rest, ok := skipVarints(d.b, uint64(npos))
			if d.bad || !ok {
				d.bad = true
				break
			}
			raw := d.b[:len(d.b)-len(rest)]
			d.b = rest
			if ord >= chunks {
				continue
			}
			off := uint32(len(b.pos))
			b.pos = append(b.pos, raw...)
			b.posts = append(b.posts, bpost{id, first + ord, uint32(npos), head, off, uint32(len(b.pos))})
			b.size += int64(len(raw)) + 4
		}
		if inNote {
			b.notePs = append(b.notePs, bnote{id, ni, tf})
			b.size += 6
		}
	}
	b.text = text
}

// keyed returns the builder term number of a note's term, adding it if
// new: found by its Key when it has one (a slice read, not a hash of its
// text), else by its text.
func (b *builder) keyed(text []byte, k uint32) uint32 {
	if i, ok := b.byKeyOf(k); ok {
		return i
	}
	i, ok := b.ids[string(text)]
	if !ok {
		i = b.term(string(text))
	}
	b.setKey(k, i)
	return i
}

// keyedTerm is keyed for a Term.
func (b *builder) keyedTerm(t *Term) uint32 {
	if i, ok := b.byKeyOf(t.Key); ok {
		return i
	}
	i := b.term(t.Text)
	b.setKey(t.Key, i)
	return i
}

// byKeyOf returns the builder term number of Key k, if known.
func (b *builder) byKeyOf(k uint32) (uint32, bool) {
	if k != 0 && int(k) < len(b.byKey) {
		if i := b.byKey[k]; i != 0 {
			return i - 1, true
		}
	}
	return 0, false
}

// setKey records that Key k (if not 0) is builder term i.
func (b *builder) setKey(k, i uint32) {
	if k == 0 {
		return
	}
	if int(k) >= len(b.byKey) {
		// len(b.byKey) == cap(b.byKey), so Grow reallocates, zeroed.
		b.byKey = slices.Grow(b.byKey, int(k)+1-len(b.byKey))
		b.byKey = b.byKey[:cap(b.byKey)]
	}
	b.byKey[k] = i + 1
}
