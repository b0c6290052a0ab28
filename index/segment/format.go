package segment

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// The segment format. All fixed-width integers are little-endian; variable
// ones are unsigned varints. A segment is a header followed by sections:
//
//	header      headerSize bytes: magic, version, counts, length sums,
//	            the section table and the CRC-32C of everything after it
//	noteRows    per note, noteRowSize bytes: id, first chunk, chunk count,
//	            offset of its data, mtime, note field lengths
//	noteData    per note: vault, path, title, tags, aliases, heading paths
//	idIndex     per note, sorted by id: id, note number
//	chunkRows   per chunk, chunkRowSize bytes: note, the note's title
//	            length, parent, line range, body and heading lengths, text
//	            hash (a chunk's ordinal is its number minus its note's first)
//	hashIndex   per chunk, sorted by hash: hash, chunk number
//	termOffs    per term (sorted): offset of its entry in termData
//	termData    per term: the term, its df, and where its three postings
//	            lists and its positions start
//	postings    chunk postings: chunk delta, body<<1|has-heading, heading
//	positions   body positions of each chunk posting, delta-coded
//	notePosts   note postings: note delta, field mask, frequencies
//	anchorPosts anchor postings: source note delta, target key, link and
//	            context frequencies
//	keyOffs     per anchor target key: offset in keyData
//	keyData     the anchor target keys
//	forward     per note: its terms (dictionary numbers, delta-coded) with
//	            the note's share of each term's df, so the df of a deleted
//	            note's terms can be taken back without reading Badger
//	blocks      per term with more than blockSize chunk postings: its
//	            blocks' rows and impacts (blocks.go)
//
// Chunks are stored note by note in note order, so a note's chunks are a
// contiguous range and its chunk ordinals follow.
const (
	magic        = "RAGDSEG\x01"
	version      = 3 // 2: block bounds; 3: aliases in the note data; an older segment fails Open and is rebuilt
	headerSize   = 512
	noteRowSize  = 48
	idRowSize    = 12
	chunkRowSize = 32
	hashRowSize  = 12
)

// Section numbers.
const (
	secNoteRows = iota
	secNoteData
	secIDIndex
	secChunkRows
	secHashIndex
	secTermOffs
	secTermData
	secPostings
	secPositions
	secNotePosts
	secAnchorPosts
	secKeyOffs
	secKeyData
	secForward
	secBlocks
	numSections
)

// header field offsets.
const (
	hVersion  = 8
	hNotes    = 12
	hChunks   = 16
	hTerms    = 20
	hKeys     = 24
	hSumBody  = 32 // Σ body length over chunks
	hSumHead  = 40 // Σ heading length over chunks
	hSumTitle = 48 // Σ over chunks of their note's title length
	hSumNote  = 56 // Σ over notes of each note field's length, NoteFields × 8
	hSections = hSumNote + NoteFields*8
	hCRC      = hSections + numSections*16
)

// ErrCorrupt reports a segment that does not decode.
var ErrCorrupt = errors.New("segment: corrupt")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func corrupt(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrCorrupt, fmt.Sprintf(format, a...))
}

var le = binary.LittleEndian

// noteRow field offsets.
const (
	nrID     = 0
	nrFirst  = 8
	nrChunks = 12
	nrData   = 16 // u32
	nrFwd    = 20 // u32
	nrMTime  = 24
	nrFields = 32 // NoteFields × 4
)

// chunkRow field offsets.
const (
	crNote   = 0
	crTitle  = 4 // u16: the note's title length, for the joint length norm
	crParent = 8
	crLine0  = 12
	crLine1  = 16
	crBody   = 20
	crHead   = 22
	crHash   = 24
)

func clamp16(v uint32) uint16 {
	if v > 0xffff {
		return 0xffff
	}
	return uint16(v)
}

// The header must hold its fields.
var _ [headerSize - hCRC - 4]struct{}
