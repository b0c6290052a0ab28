package segment

import (
	"slices"
	"strings"
)

// occurrence is one note's entry for a term while a segment is built.
type occurrence struct {
	note uint32
	term *Term
}

type anchorOcc struct {
	note, key   uint32
	link, ctxTF uint32
}

type dictEntry struct {
	occ     []occurrence
	anchors []anchorOcc
}

// Build lays out a segment of notes, in the order given.
func Build(notes []*Note) []byte {
	w := newWriter()
	dict := make(map[string]*dictEntry)
	entry := func(t string) *dictEntry {
		e := dict[t]
		if e == nil {
			e = &dictEntry{}
			dict[t] = e
		}
		return e
	}
	first := make([]uint32, len(notes))
	for i, n := range notes {
		first[i] = w.chunks
		ni := w.addNote(&noteMeta{id: n.ID, vault: n.Vault, path: n.Path, title: n.Title, tags: n.Tags,
			mtime: n.MTime, headings: n.Headings, fieldLen: n.FieldLen, nChunks: uint32(len(n.Chunks))})
		for ord := range n.Chunks {
			w.addChunk(ni, n.FieldLen[FieldTitle], &n.Chunks[ord])
		}
		for t := range n.Terms {
			e := entry(n.Terms[t].Text)
			e.occ = append(e.occ, occurrence{ni, &n.Terms[t]})
		}
		for _, a := range n.Anchors {
			k := w.key(a.Target)
			for _, at := range a.Terms {
				e := entry(at.Text)
				e.anchors = append(e.anchors, anchorOcc{ni, k, at.Link, at.Context})
			}
		}
	}
	terms := make([]string, 0, len(dict))
	for t := range dict {
		terms = append(terms, t)
	}
	slices.SortFunc(terms, strings.Compare)
	for _, t := range terms {
		e := dict[t]
		w.beginTerm()
		var df uint64
		for _, o := range e.occ {
			n := notes[o.note]
			dfc := o.term.df(len(n.Chunks))
			df += uint64(dfc)
			w.noteTerm(o.note, dfc)
			for _, p := range o.term.Postings {
				if int(p.Ord) < len(n.Chunks) {
					w.posting(first[o.note]+p.Ord, p.Body, p.Head, p.Pos)
				}
			}
		}
		for _, o := range e.occ {
			if o.term.hasNote() {
				w.notePosting(o.note, &o.term.Note)
			}
		}
		for _, a := range e.anchors {
			w.anchorPosting(a.note, a.key, a.link, a.ctxTF)
		}
		w.endTerm(t, df)
	}
	return w.finish()
}
