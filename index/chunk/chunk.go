// Package chunk splits Markdown and plain-text notes into parent sections and
// child retrieval chunks with exact byte and line ranges.
//
// Markdown is parsed with goldmark. The body (everything after an optional
// YAML frontmatter block) is cut into sections at every top-level heading;
// each section becomes one or more parents of at most Options.ParentChars
// bytes, and every parent is packed into children of at most
// Options.ChildChars bytes that overlap by about Options.ChildOverlap bytes.
// Children never split a top-level block (fenced code, list, table, ...)
// unless that block alone is larger than a child.
//
// Every chunk is a retrieval unit with something to search: a section
// that is only a heading merges forward into the section after it (its
// child, usually), a tiny section (less than a short sentence of text: a
// status line, a tags line, a link or two) merges into the previous
// section when both fit in one child, else into the next, and a piece of
// packing without any text of its own (a trailing tags line) joins or
// borrows from its neighbour. A merged unit carries the heading path of
// its main section and records every heading it covers (Chunk.Headings). A
// note with nothing to search in its body (only headings, tags, embeds or
// frontmatter) has no parents or chunks.
//
// All offsets are byte offsets into the original source (including any
// frontmatter and UTF-8 BOM) and all line numbers are 1-based lines of the
// original source, so a citation "path:L12-L30" built from a Span opens on
// exactly the cited text. A chunk's Text is always string(src[Start:End]),
// trimmed of surrounding whitespace, and never splits a UTF-8 sequence.
package chunk

import "errors"

// Default option values used by Options.WithDefaults.
const (
	DefaultChildChars   = 1200
	DefaultChildOverlap = 150
	DefaultParentChars  = 4000

	// MinChildChars is the smallest ChildChars accepted; smaller values are
	// raised to it by WithDefaults.
	MinChildChars = 16
)

// Version identifies the chunking algorithm. It is bumped whenever the same
// input and options can produce different documents, so an index can store
// it next to the options and re-chunk its files when it changes.
//
// Version 2 added Document.Links and made '(' a valid character before an
// inline #tag. Version 3 added Chunk.OwnLine (a PDF chunk's page is that of
// its own text, not of the overlap it repeats). Version 4 merged tiny and
// heading-only sections into their neighbours, dropped notes without
// substance, and added Headings and Document.Properties.
const Version = 4

// ErrInvalidUTF8 is returned when the source is not valid UTF-8.
var ErrInvalidUTF8 = errors.New("chunk: source is not valid UTF-8")

// Options controls chunk sizes. The zero value means "all defaults".
type Options struct {
	ChildChars   int // target max size of a child chunk in bytes of source text; default 1200
	ChildOverlap int // approx overlap between consecutive children of one section; default 150, negative disables overlap
	ParentChars  int // cap of a parent (section) chunk; default 4000
}

// WithDefaults returns a copy of o with zero (or negative) sizes replaced by
// the defaults. ChildChars is raised to at least MinChildChars, ChildOverlap
// is clamped to less than ChildChars/2 (a negative overlap becomes 0) and
// ParentChars is raised to at least ChildChars.
func (o Options) WithDefaults() Options {
	if o.ChildChars <= 0 {
		o.ChildChars = DefaultChildChars
	}
	if o.ChildChars < MinChildChars {
		o.ChildChars = MinChildChars
	}
	switch {
	case o.ChildOverlap == 0:
		o.ChildOverlap = DefaultChildOverlap
	case o.ChildOverlap < 0:
		o.ChildOverlap = 0
	}
	if limit := (o.ChildChars - 1) / 2; o.ChildOverlap > limit {
		o.ChildOverlap = limit
	}
	if o.ParentChars <= 0 {
		o.ParentChars = DefaultParentChars
	}
	if o.ParentChars < o.ChildChars {
		o.ParentChars = o.ChildChars
	}
	return o
}

// Document is the result of chunking one file.
type Document struct {
	// Title is the frontmatter `title`, else the text of the first top-level
	// H1, else "" (the caller falls back to the file name).
	Title string
	// Tags are the frontmatter `tags` (or `tag`) plus inline #tags found in
	// body text outside code and wikilinks, without '#', in order of first appearance and
	// deduplicated case-insensitively (the first spelling wins). Nested tags
	// such as "a/b" are kept as is.
	Tags []string
	// Aliases are the frontmatter `aliases` (or `alias`), list or single string.
	Aliases []string
	// Meta is the whole parsed YAML frontmatter; nil if there is none, if it
	// is empty, if it is not a mapping, or if it is malformed.
	Meta map[string]any
	// Properties are the frontmatter's top-level keys whose value is a
	// scalar or a list of scalars, in source order, with the values as
	// written (numbers, booleans and dates as their text; a list nested in
	// a list is flattened). Null values and empty strings are skipped,
	// and so are keys holding a mapping. Nil when Meta is nil.
	Properties []Property
	// BodyStart is the byte offset where the body starts: after the
	// frontmatter if there is one, else after a UTF-8 BOM, else 0.
	BodyStart int
	// Parents are the sections (split at ParentChars), in document order.
	Parents []Parent
	// Chunks are the children, in document order.
	Chunks []Chunk
	// Links are every link-like reference in the frontmatter and the body,
	// in source order: wikilinks, embeds, Markdown links to local files,
	// #tags and wikilink-valued frontmatter fields (see Link). Nothing in
	// code blocks, code spans or HTML counts. Nil for plain text.
	Links []Link
}

// Property is a frontmatter key (as written) and its scalar values.
type Property struct {
	Key    string
	Values []string
}

// Span is a byte and line range of the source.
type Span struct {
	Start, End         int // byte offsets into the source, [Start, End)
	LineStart, LineEnd int // 1-based inclusive line numbers of the first and last byte of the span
}

// Parent is a section (heading line plus content up to the next heading), or
// a ParentChars-sized part of one.
type Parent struct {
	Span
	// Heading is the heading path, e.g. ["Project Alpha", "Risks"], of the
	// parent's main section (see Chunk.Heading); nil for text before the
	// first heading and for plain text. Parents and chunks of one section
	// share the same slice.
	Heading []string
	// Headings are the heading paths of every section the parent covers,
	// in document order (see Chunk.Headings).
	Headings [][]string
}

// Chunk is a child retrieval chunk inside a parent.
//
// Sections too small to be retrieval units on their own are merged into a
// neighbour (a heading directly followed by a subheading, a section of a
// tags line or one short sentence), so a chunk can cover several
// sections: Heading is then the path of the main one (the one with the
// most text), used for the citation, and Headings lists every section's
// path. No chunk consists only of headings, tags, embeds or markup.
type Chunk struct {
	Span
	Parent  int      // index into Document.Parents
	Heading []string // same as its parent's heading path
	// Headings are the heading paths of every section whose heading or
	// text the chunk covers, or that heads the merged group it belongs to,
	// in document order; Heading is one of them. Nil when no section has
	// a heading. Shared between chunks; do not modify.
	Headings [][]string
	Text     string // exactly string(src[Start:End])
	// OwnLine is the first line of the chunk's own text, after the overlap
	// carried over from the previous chunk (LineStart when there is none):
	// where the chunk's new text begins, e.g. for its PDF page.
	OwnLine int
}

// BookkeepingProperties are frontmatter keys that hold bookkeeping rather
// than what a note is about, or that have a field of their own (title,
// aliases, tags, language): the index leaves them out of the property
// field unless told otherwise.
var BookkeepingProperties = []string{
	"title", "aliases", "alias", "tags", "tag", "cssclass", "cssclasses", "publish", "permalink",
	"layout", "template", "uuid", "id", "created", "updated", "modified", "date created",
	"date modified", "date updated", "mtime", "ctime", "lang", "language",
}
