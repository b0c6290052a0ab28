// Package index stores what ragd knows about the vaults: documents, their
// parent sections and child chunks, the BM25 postings and collection
// statistics, each note's part of the entity graph and the chunk vectors,
// in Badger, and serves BM25 from an in-memory copy of the postings that is
// loaded at open and kept in step with every write.
//
// Badger is the source of truth. Every document's update (its record,
// chunks, postings, graph record and the statistics delta) is applied
// inside one Badger transaction (Store.Apply), so a crash never leaves half
// a document; the in-memory postings and graph are changed only after that
// transaction commits. The key layout is described in keys.go and
// docs/architecture.md.
//
// Beside it: index/ingest decides what to index and prepares documents
// (read, hash, extract, chunk, analyse) for Apply; index/graph holds the
// entity graph's records and in-memory graph; index/analyze and
// index/chunk turn text into terms and chunks; index/vector is the HNSW
// vector index.
package index

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
	"time"
)

// KindOf is the kind of document a vault path is read as: "markdown",
// "text", or "" for a file whose text comes from an extractor (the
// document's Kind is then the file's extension).
func KindOf(rel string) string {
	switch strings.ToLower(path.Ext(rel)) {
	case ".md", ".markdown", ".mdown", ".mkd":
		return "markdown"
	case ".txt", ".text":
		return "text"
	}
	return ""
}

// IsText reports whether a file is indexed as it is on disk (Markdown or
// plain text), so its citations' lines can be read back from the file;
// other files' text comes from an extractor.
func IsText(rel string) bool { return KindOf(rel) != "" }

// Document statuses.
const (
	StatusOK     = "ok"     // indexed; its chunks are searchable
	StatusFailed = "failed" // skipped; Error says why
)

// DocID identifies a document inside the store. It is derived from the
// vault name and path (see docIDFor), so it is stable across rebuilds.
type DocID uint64

// String formats the id as 16 hex digits.
func (d DocID) String() string { return fmt.Sprintf("%016x", uint64(d)) }

// ChunkRef names a child chunk: its document and its ordinal in that
// document.
type ChunkRef struct {
	Doc DocID
	Ord uint32
}

// String is the chunk's stable public id, "<doc>.<ordinal>".
func (c ChunkRef) String() string { return fmt.Sprintf("%s.%d", c.Doc, c.Ord) }

// Document is the stored record of one file of a vault.
type Document struct {
	ID      DocID     `json:"-"`
	Vault   string    `json:"vault"`
	Path    string    `json:"path"` // slash-separated, relative to the vault root
	Hash    string    `json:"hash"` // hex SHA-256 of the file's bytes ("" if unreadable)
	Size    int64     `json:"size"`
	ModTime time.Time `json:"mtime"`
	Title   string    `json:"title"`
	Tags    []string  `json:"tags,omitempty"`
	Aliases []string  `json:"aliases,omitempty"`
	Status  string    `json:"status"`
	Error   string    `json:"error,omitempty"`
	Kind    string    `json:"kind"` // "markdown", "text", or the extension of an extracted file ("pdf")
	// Pages maps the extracted text's lines to the source's pages: page
	// i+1 begins at line Pages[i].
	Pages   []int `json:"pages,omitempty"`
	Chunks  int   `json:"chunks"`
	Parents int   `json:"parents"`
	// Pipeline identifies the chunking settings the document was indexed
	// with; a file is indexed again when they change, even if its bytes
	// did not.
	Pipeline string `json:"pipeline,omitempty"`
	// EnrichError says why the model enrichment of an indexed note failed
	// (it is retried on the next pass); "" otherwise.
	EnrichError string `json:"enrich_error,omitempty"`
	// Retry marks a failure that says nothing about the file (its
	// extractor crashed, timed out or was restarting): the file is tried
	// again on every pass and when the extractor is healthy, never skipped
	// as unchanged.
	Retry     bool      `json:"retry,omitempty"`
	IndexedAt time.Time `json:"indexed_at"`
	// Inode and CTime (Unix ns) of the file as it was read, and StatAt
	// (Unix ns), when it was stat'ed just before: with Size and ModTime they
	// let a pass skip an unchanged file without reading it (index/ingest).
	// 0 when unknown (never skipped).
	Inode  uint64 `json:"ino,omitempty"`
	CTime  int64  `json:"ctime,omitempty"`
	StatAt int64  `json:"stat_at,omitempty"`
}

// Chunk is the stored record of a child chunk, the unit of retrieval.
type Chunk struct {
	Ref       ChunkRef `json:"-"`
	Parent    uint32   `json:"parent"`
	Heading   []string `json:"heading,omitempty"`
	Start     int      `json:"start"` // byte range in the file
	End       int      `json:"end"`
	LineStart int      `json:"line_start"`
	LineEnd   int      `json:"line_end"`
	Tokens    int      `json:"tokens"` // analysed body terms
	Hash      string   `json:"hash"`   // hex SHA-256 of Text, for embedding reuse
	Text      string   `json:"text"`
	Page      int      `json:"page,omitempty"` // extracted documents: page of LineStart
}

// Parent is the stored record of a parent section; its text is the file's
// bytes in [Start, End) and is not stored again.
type Parent struct {
	Heading   []string `json:"heading,omitempty"`
	Start     int      `json:"start"`
	End       int      `json:"end"`
	LineStart int      `json:"line_start"`
	LineEnd   int      `json:"line_end"`
}

// Stats are the collection statistics BM25 needs, per field.
type Stats struct {
	Chunks int64 `json:"chunks"`
	Docs   int64 `json:"docs"`
	Failed int64 `json:"failed"`
	// Langs has bit l set once a note was analysed in language l (queries
	// are analysed in each); it never shrinks.
	Langs   uint32 `json:"langs,omitempty"`
	Version int    `json:"-"`
}

func (s *Stats) add(o Stats, sign int64) {
	s.Chunks += sign * o.Chunks
	s.Docs += sign * o.Docs
	s.Failed += sign * o.Failed
	s.Langs |= o.Langs
}

// Unchanged reports whether the file at abs still holds the bytes d was
// indexed from: the same size and modification time, or else the same
// content hash. A file that cannot be read has changed.
func (d *Document) Unchanged(abs string) bool {
	fi, err := os.Stat(abs)
	if err != nil {
		return false
	}
	if fi.Size() == d.Size && fi.ModTime().UTC().Equal(d.ModTime) {
		return true
	}
	f, err := os.Open(abs)
	if err != nil {
		return false
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return hex.EncodeToString(h.Sum(nil)) == d.Hash
}

// pageOf returns the 1-based page holding line, or 0 without a page map.
func pageOf(pages []int, line int) int {
	p := 0
	for i, start := range pages {
		if start > line {
			break
		}
		p = i + 1
	}
	return p
}
