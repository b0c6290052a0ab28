package segment

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// oracleOcc is one note's entry for a term while a segment is built.
type oracleOcc struct {
	note uint32
	term *Term
}

type oracleAnchor struct {
	note, key   uint32
	link, ctxTF uint32
}

type oracleEntry struct {
	occ     []oracleOcc
	anchors []oracleAnchor
}

// buildOracle is the first Build (a map of terms to note pointers), kept
// to check that the builder lays out the same bytes.
func buildOracle(notes []*Note) []byte {
	notes = slices.Clone(notes)
	for i, n := range notes {
		if n.Terms == nil && n.TermRecord != nil {
			d, err := DecodeNote(EncodeNote(nil, n)) // the terms as Terms
			if err != nil {
				panic(err)
			}
			notes[i] = d
		}
	}
	w := newWriter()
	dict := make(map[string]*oracleEntry)
	entry := func(t string) *oracleEntry {
		e := dict[t]
		if e == nil {
			e = &oracleEntry{}
			dict[t] = e
		}
		return e
	}
	first := make([]uint32, len(notes))
	for i, n := range notes {
		first[i] = w.chunks
		ni := w.addNote(&noteMeta{id: n.ID, vault: n.Vault, path: n.Path, title: n.Title, tags: n.Tags, aliases: n.Aliases,
			mtime: n.MTime, headings: n.Headings, fieldLen: n.FieldLen, nChunks: uint32(len(n.Chunks))})
		for ord := range n.Chunks {
			w.addChunk(ni, n.FieldLen[FieldTitle], &n.Chunks[ord])
		}
		for t := range n.Terms {
			e := entry(n.Terms[t].Text)
			e.occ = append(e.occ, oracleOcc{ni, &n.Terms[t]})
		}
		for _, a := range n.Anchors {
			k := w.key(a.Target)
			for _, at := range a.Terms {
				e := entry(at.Text)
				e.anchors = append(e.anchors, oracleAnchor{ni, k, at.Link, at.Context})
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

// BuildOracle is buildOracle for the external tests.
var BuildOracle = buildOracle

func TestBuildMatchesOracle(t *testing.T) {
	for seed := range uint64(20) {
		notes := randomNotes(seed, 1+int(seed)*13)
		if got, want := Build(notes), buildOracle(notes); !bytes.Equal(got, want) {
			t.Fatalf("seed %d: the builder's segment (%d bytes) differs from the oracle's (%d bytes)", seed, len(got), len(want))
		}
	}
}

// asRecord returns n with its terms in a TermRecord, as the index gives
// them, instead of Terms.
func asRecord(n *Note) *Note {
	var e NoteEncoder
	e.Begin(nil, n, len(n.Terms))
	for i := range n.Terms {
		t := &n.Terms[i]
		e.Term(t.Text, t.Key, &t.Note, len(t.Postings))
		for _, ps := range t.Postings {
			e.Posting(ps.Ord, ps.Head, ps.Pos)
		}
	}
	_, terms, keys := e.End(n.Anchors)
	r := *n
	r.Terms, r.TermRecord, r.TermKeys = nil, terms, slices.Clone(keys)
	return &r
}

// TestKeyedTermsBuildTheSameSegment gives the notes' terms Keys (one per
// distinct text, as analyze.TermID does) on some notes and none on others,
// and some notes' terms as records (TermRecord), in one builder and across
// a reused one: the bytes are the oracle's, and a note's record is the
// same either way.
func TestKeyedTermsBuildTheSameSegment(t *testing.T) {
	keys := map[string]uint32{}
	var b *builder
	for seed := range uint64(20) {
		notes := randomNotes(100+seed, 1+int(seed)*13)
		want := buildOracle(notes)
		for i, n := range notes {
			if (i+int(seed))%3 == 0 {
				continue // this note's terms have no Keys
			}
			for j := range n.Terms {
				tm := &n.Terms[j]
				if keys[tm.Text] == 0 {
					keys[tm.Text] = uint32(len(keys)*7 + 1) // sparse numbers
				}
				tm.Key = keys[tm.Text]
			}
			if (i+int(seed))%3 == 2 {
				r := asRecord(n)
				if got, want := EncodeNote(nil, r), EncodeNote(nil, n); !bytes.Equal(got, want) {
					t.Fatalf("seed %d: the record of a note given as a TermRecord differs", seed)
				}
				notes[i] = r
			}
		}
		if b == nil {
			b = newBuilder()
		} else {
			b = b.reuse()
		}
		for _, n := range notes {
			b.add(n)
		}
		if got, _ := b.finish(); !bytes.Equal(got, want) {
			t.Fatalf("seed %d: the segment built with keyed terms (%d bytes) differs from the oracle's (%d bytes)", seed, len(got), len(want))
		}
	}
}
