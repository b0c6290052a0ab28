// Package plugins defines ragd's backends — embedders, extractors and
// rerankers — as Go interfaces, and hosts them as go-plugin subprocesses
// speaking the gRPC protocol in plugins/proto/ragd/plugin/v1.
//
// The daemon only ever sees these interfaces. A backend implementation
// (built-in, in plugins/embed, plugins/extract, plugins/rerank) is served in
// its own process by Serve* and reached from the daemon through the host's
// gRPC clients, which implement the same interfaces; a crash or hang of the
// backend therefore never reaches the daemon's address space.
package plugins

import (
	"context"
	"encoding/json"
	"time"
)

// Kinds of plugin.
const (
	KindEmbedder  = "embedder"
	KindExtractor = "extractor"
	KindReranker  = "reranker"
)

// InputType says what an embedder input is: embedders that want
// asymmetric prefixes (nomic "search_query:", e5 "query:") apply them.
type InputType int

const (
	InputDocument InputType = iota
	InputQuery
)

func (t InputType) String() string {
	if t == InputQuery {
		return "query"
	}
	return "document"
}

// EmbedderInfo describes an embedder's vector space. Everything that
// changes the vectors belongs in Signature.
type EmbedderInfo struct {
	Name           string // plugin implementation, e.g. "openai", "uselite"
	Version        string
	Model          string // model id as the provider names it
	Dimensions     int    // length of every returned vector
	MaxInputTokens int    // inputs longer than this are truncated by the backend
	QueryPrefix    string // prepended to queries ("" when none)
	DocumentPrefix string // prepended to documents
	Normalized     bool   // vectors are unit length (L2)
	MaxBatch       int    // largest batch one Embed call accepts (0: no limit)
}

// Signature identifies a vector space: two embedders with the same
// signature produce comparable vectors. A change re-embeds everything.
func (i EmbedderInfo) Signature() string {
	b, _ := json.Marshal(struct {
		Name, Model, QP, DP string
		Dims, MaxTok        int
		Norm                bool
	}{i.Name, i.Model, i.QueryPrefix, i.DocumentPrefix, i.Dimensions, i.MaxInputTokens, i.Normalized})
	return string(b)
}

// Embedder turns texts into vectors.
type Embedder interface {
	EmbedderInfo(ctx context.Context) (EmbedderInfo, error)
	// Embed returns one vector per text, in order. The whole batch travels
	// in one call: implementations must not make per-item round trips.
	Embed(ctx context.Context, input InputType, texts []string) ([][]float32, error)
}

// ExtractorInfo says which files an extractor handles.
type ExtractorInfo struct {
	Name       string
	Version    string
	Extensions []string // lower-case with the dot: ".pdf"
	MediaTypes []string // "application/pdf"
}

// ExtractRequest is one file to extract.
type ExtractRequest struct {
	Path      string // vault-relative, slash-separated (for messages and hints)
	MediaType string // from the extension; may be ""
	Data      []byte
}

// Text formats of an Extraction.
const (
	FormatMarkdown = "markdown" // chunked by headings
	FormatText     = "text"     // chunked by paragraphs
)

// Extraction is the text of a file and what was learned about it. Text is
// what ragd indexes and cites: citations' line ranges refer to its lines
// (for PDFs, Pages maps lines to page numbers).
type Extraction struct {
	Text      string
	Format    string // FormatMarkdown or FormatText
	Title     string
	Metadata  map[string]string
	Pages     []Page // PDF: where each page starts in Text
	Entities  []Entity
	Relations []Relation
}

// Page marks where a page of the source begins in Extraction.Text.
type Page struct {
	Number    int // 1-based
	StartLine int // 1-based line of Text where the page begins
}

// Entity is a named thing found in the text (optional output).
type Entity struct {
	Name       string
	Type       string // PERSON, ORGANIZATION, PRODUCT, PLACE, EVENT, CONCEPT, ...
	Aliases    []string
	Line       int // 1-based line of a mention in Text (0: unknown)
	Confidence float64
}

// Relation is a subject–predicate–object triple (optional output).
type Relation struct {
	Subject    string
	Predicate  string
	Object     string
	Line       int
	Confidence float64
}

// Extractor turns a file into text.
type Extractor interface {
	ExtractorInfo(ctx context.Context) (ExtractorInfo, error)
	Extract(ctx context.Context, req ExtractRequest) (Extraction, error)
}

// RerankerInfo describes a reranker.
type RerankerInfo struct {
	Name    string
	Version string
	Model   string // "" for heuristic rerankers
	// MetadataOnly says the reranker does not read Candidate.Text, so the
	// host need not load or send it.
	MetadataOnly bool
}

// Candidate is one retrieved chunk offered to a reranker.
type Candidate struct {
	ID       string
	Text     string
	Path     string // vault-relative
	Vault    string
	Title    string
	Heading  string   // heading path joined with " > "
	Aliases  []string // the note's other names (frontmatter aliases)
	Score    float64
	Modified time.Time
}

// Reranker scores candidates against a query; higher is better. It
// returns one score per candidate, in order.
type Reranker interface {
	RerankerInfo(ctx context.Context) (RerankerInfo, error)
	Rerank(ctx context.Context, query string, cands []Candidate) ([]float64, error)
}

// Options is a plugin's [plugin.options] table from ragd.toml, handed to
// the plugin process at start (as JSON) before any other call.
type Options map[string]any

// Configurable is implemented by backends that take options. Configure is
// called once per process start, before Info.
type Configurable interface {
	Configure(ctx context.Context, opts Options) error
}
