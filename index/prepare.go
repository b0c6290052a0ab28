package index

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strings"
	"time"

	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/segment"
)

// Prepared is a document analysed and ready to be written: everything the
// write transaction needs, computed off the write path by the workers.
type Prepared struct {
	Doc     Document
	Chunks  []Chunk
	Parents []Parent

	note  *segment.Note
	rec   []byte // note's record (segment.EncodeNote's bytes)
	graph graph.Record
	enc   encoded // the values to store, encoded off the write path
}

// encoded holds a Prepared's records as stored bytes. None of them
// contains the document id, so the workers encode them before the writer
// assigns ids.
type encoded struct {
	doc    []byte
	chunks []byte // the chunks record: chunks and parents (codec_chunk.go)
	fwd    []byte
	graph  []byte
}

// encode fills p.enc unless it is already filled.
func (p *Prepared) encode() error {
	if p.enc.doc != nil {
		return nil
	}
	if p.Doc.IndexedAt.IsZero() {
		p.Doc.IndexedAt = time.Now().UTC()
	}
	var e encoded
	var err error
	if e.doc, err = json.Marshal(&p.Doc); err != nil {
		return err
	}
	if len(p.Chunks)+len(p.Parents) > 0 {
		e.chunks = encodeChunks(p.Chunks, p.Parents)
	}
	if p.Doc.Status == StatusOK {
		e.fwd = p.rec
		e.graph = encodeGraph(&p.graph)
	}
	p.enc = e
	return nil
}

// dropText releases the chunk texts once encoded: the stored bytes hold
// them, so a batch waiting for its transaction does not keep them twice.
func (p *Prepared) dropText() {
	for i := range p.Chunks {
		p.Chunks[i].Text = ""
	}
}

// Failed returns a Prepared that records the file as skipped with reason
// err; it has no chunks and replaces whatever was indexed for the path.
func Failed(doc Document, reason string) *Prepared {
	doc.Status = StatusFailed
	doc.Error = reason
	doc.Chunks, doc.Parents = 0, 0
	return &Prepared{Doc: doc}
}

// markFailed turns p into the record of a skipped file.
func (p *Prepared) markFailed(reason string) {
	*p = *Failed(p.Doc, reason)
}

// Prepare analyses a chunked document. doc carries the file's identity
// (vault, path, hash, size, mtime, kind); title, tags and aliases come from
// cd, with fallback as the title when cd has none.
func Prepare(an *analyze.Analyzer, doc Document, cd *chunk.Document, fallback string) *Prepared {
	return PrepareFields(an, DefaultFields, doc, cd, fallback)
}

// PrepareFields is Prepare with the note fields f.
func PrepareFields(an *analyze.Analyzer, f Fields, doc Document, cd *chunk.Document, fallback string) *Prepared {
	doc.Status, doc.Error = StatusOK, ""
	doc.Title = cd.Title
	if doc.Title == "" {
		doc.Title = fallback
	}
	doc.Tags, doc.Aliases = cd.Tags, cd.Aliases
	doc.Chunks, doc.Parents = len(cd.Chunks), len(cd.Parents)
	p := &Prepared{Doc: doc, Chunks: make([]Chunk, 0, len(cd.Chunks)), Parents: make([]Parent, 0, len(cd.Parents))}
	for _, par := range cd.Parents {
		p.Parents = append(p.Parents, Parent{Heading: par.Heading, Start: par.Start, End: par.End,
			LineStart: par.LineStart, LineEnd: par.LineEnd})
	}
	var buf []byte
	for i, c := range cd.Chunks {
		buf = append(buf[:0], c.Text...) // hashed without a copy per chunk
		sum := sha256.Sum256(buf)
		p.Chunks = append(p.Chunks, Chunk{
			Ref: ChunkRef{Ord: uint32(i)}, Parent: uint32(c.Parent), Heading: c.Heading,
			Start: c.Start, End: c.End, LineStart: c.LineStart, LineEnd: c.LineEnd,
			Hash: hex.EncodeToString(sum[:16]), Text: c.Text,
			Page: pageOf(doc.Pages, max(c.LineStart, c.OwnLine)),
		})
	}
	p.graph = graph.Build(func(t string) []string { return an.AppendTerms(nil, t) }, doc.Path, doc.Title, cd)
	p.note, p.rec = buildNote(an, f, &p.Doc, cd, p.Chunks, p.graph.Relations)
	for i := range p.Chunks {
		p.Chunks[i].Tokens = int(p.note.Chunks[i].Body)
	}
	return p
}

// textKey is the first 8 bytes of the SHA-256 of the chunk's text, the key
// of its embedding.
func (c *Chunk) textKey() uint64 {
	b, err := hex.DecodeString(c.Hash)
	if err != nil || len(b) < 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b[:8])
}

// headingsBelowTitle drops a leading heading that only repeats the title, so
// a note's H1 is not counted twice (once as title, once as heading).
func headingsBelowTitle(path []string, title string) []string {
	if len(path) > 0 && strings.EqualFold(strings.TrimSpace(path[0]), strings.TrimSpace(title)) {
		return path[1:]
	}
	return path
}

// stats is the collection-statistics contribution of this document.
func (p *Prepared) stats() Stats {
	if p == nil {
		return Stats{}
	}
	if p.Doc.Status != StatusOK {
		return Stats{Failed: 1}
	}
	st := Stats{Docs: 1, Chunks: int64(len(p.Chunks))}
	if p.note != nil {
		st.Langs = 1 << p.note.Lang
	}
	return st
}

// Note is the document's segment record (nil for a failed document).
func (p *Prepared) Note() *segment.Note { return p.note }

// Prepare analyses a chunked document with the store's analyzer and note
// fields (see the package function Prepare).
func (s *Store) Prepare(doc Document, cd *chunk.Document, fallback string) *Prepared {
	return PrepareFields(s.an, s.fields, doc, cd, fallback)
}

// FieldsSignature names the note-field settings documents are indexed
// with: part of a document's pipeline, so a change reindexes every note.
func (s *Store) FieldsSignature() string { return s.fields.signature() }
