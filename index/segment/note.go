// Package segment is ragd's lexical index: immutable postings segments in the
// manner of Lucene, zoekt and Bleve's zap, written for notes.
//
// A segment holds a set of notes: per note its identity and citation data
// (vault, path, title, tags, heading paths), per chunk its doc values
// (note, ordinal, parent, line range, field lengths, text hash), a sorted
// term dictionary and, per term, three postings lists — chunk postings
// (body and heading term frequencies, with body positions in a separate
// area), note postings (title, alias, property and tag frequencies) and
// anchor postings (the text of links in the note, attributed to the link's
// target). A segment is one byte slice in one format whether it lives on
// the heap (a fresh in-memory segment) or in a memory-mapped file, so
// opening a flushed segment costs a header read and an mmap, independent of
// its size.
//
// A Set is the live index: flushed segments listed in a manifest, small
// in-memory segments for recent changes, deletions as per-segment bitmaps,
// and background merges. Badger remains the source of truth: every
// segment can be rebuilt from the per-note records (Note, encoded by
// EncodeNote) that the store keeps beside its documents.
//
// Ranking is BM25F over the chunk as the retrieval unit with the note's
// fields attached to every chunk of the note (search.go), aggregated to
// notes: a note's score is its best chunk plus a share of its other
// chunks' evidence.
package segment

// Note fields: text that belongs to the whole note and counts for every
// chunk of it. Their frequencies are stored per note (note postings).
const (
	FieldTitle = iota // the note title and, when it differs, the file name
	FieldAlias        // frontmatter aliases
	FieldProps        // frontmatter property values
	FieldTags         // tags (frontmatter and inline)
	NoteFields
)

// Note is everything a segment stores of one note. It is built by the
// index from a prepared document and stored (EncodeNote) beside it in
// Badger, so segments can be rebuilt without re-reading the vaults.
type Note struct {
	ID       uint64
	Vault    string
	Path     string
	Title    string
	Tags     []string
	Aliases  []string // the note's aliases, for the reranker's title signal
	MTime    int64    // modification time, Unix seconds
	Lang     uint8    // the analysis language (analyze.Lang)
	Headings [][]string
	Chunks   []Chunk
	// FieldLen are the analysed lengths of the note fields.
	FieldLen [NoteFields]uint32
	// Terms are the note's distinct terms, sorted, with their frequencies.
	Terms []Term
	// TermRecord, when Terms is nil, holds the terms as the note's record
	// encodes them (NoteEncoder), and TermKeys their Keys in order: a
	// builder reads them from there. The index writes a note's terms
	// straight into its record, never into Terms.
	TermRecord []byte
	TermKeys   []uint32
	// Anchors are the note's outgoing links with the words that describe
	// their target.
	Anchors []Anchor
}

// Chunk is one chunk's doc values.
type Chunk struct {
	Parent    uint32
	LineStart uint32
	LineEnd   uint32
	Body      uint32 // analysed body length
	Head      uint32 // analysed heading length
	Hash      uint64 // first 8 bytes of the SHA-256 of the chunk text
}

// Term is one distinct term of a note.
type Term struct {
	Text string
	// Key, when not 0, is a number that stands for Text (analyze.TermID):
	// terms with the same Key have the same Text, so a builder finds the
	// term by it without hashing the text. It is not stored.
	Key uint32
	// Note holds the term's frequency in each note field.
	Note [NoteFields]uint32
	// Postings are the chunks holding the term in their body or headings,
	// by ordinal.
	Postings []Posting
}

// Posting is a term's occurrences in one chunk.
type Posting struct {
	Ord  uint32
	Body uint32   // frequency in the body text
	Head uint32   // frequency in the heading path
	Pos  []uint32 // body positions, ascending (len(Pos) == Body)
}

// Anchor is one link target of a note with the analysed words describing
// it: the link's own text (its alias, or the target's name) and the
// sentence around the link.
type Anchor struct {
	Target string // the target's normalised name (graph.NameKey)
	Terms  []AnchorTerm
}

// AnchorTerm is a term's frequency in a link's text and in its context.
type AnchorTerm struct {
	Text    string
	Link    uint32
	Context uint32
}

// hasNote reports whether t occurs in a note field.
func (t *Term) hasNote() bool {
	for _, f := range t.Note {
		if f != 0 {
			return true
		}
	}
	return false
}

// df is the number of the note's chunks that hold t in some field: every
// chunk when t is in a note field (note fields count for every chunk),
// else the chunks of its postings.
func (t *Term) df(chunks int) uint32 {
	if t.hasNote() {
		return uint32(chunks)
	}
	return uint32(len(t.Postings))
}
