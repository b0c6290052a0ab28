package ipc

// Explain is, for one hit, each channel's rank and score and the fused
// score (SearchRequest.Explain).
type Explain struct {
	Channels []ChannelScore `json:"channels"`
	Fused    float64        `json:"fused"`
	Reranked float64        `json:"reranked,omitempty"`
}

// ChannelScore is one channel's opinion of a hit; Rank is 1-based, 0 when
// the channel did not retrieve it.
type ChannelScore struct {
	Channel string  `json:"channel"`
	Rank    int     `json:"rank"`
	Score   float64 `json:"score"` // the channel's own score: BM25F, cosine similarity, graph weight
	// Norm is the score on the channel's absolute 0–1 scale, the one
	// fusion adds up: for bm25 the share of the query matched, for vector
	// the similarity above the calibrated noise floor.
	Norm float64 `json:"norm"`
}

// Parent is the section a child chunk belongs to (child → parent
// expansion): the hit is Result's own lines, the context is these.
type Parent struct {
	LineStart int    `json:"line_start"`
	LineEnd   int    `json:"line_end"`
	Heading   string `json:"heading"`
	Text      string `json:"text,omitempty"`
}

// ContextRequest is the body of POST /v1/context: retrieve, then build a
// prompt-ready block of cited text within a character budget.
type ContextRequest struct {
	Query      string   `json:"query"`
	K          int      `json:"k,omitempty"`
	Vaults     []string `json:"vaults,omitempty"`
	PathPrefix string   `json:"path_prefix,omitempty"`
	Mode       string   `json:"mode,omitempty"` // hybrid|lexical|vector
	// Budget is the most characters of text the block may hold (default
	// 6000).
	Budget int `json:"budget,omitempty"`
	// Style is "snippets" (full text within the budget, default) or
	// "summary" (paths and preview lines).
	Style string `json:"style,omitempty"`
}

// ContextResponse is the answer to /v1/context.
type ContextResponse struct {
	Query string `json:"query"`
	// Context is the <retrieved-context> block, ready to paste into a
	// prompt; empty when not grounded.
	Context   string            `json:"context"`
	Grounded  bool              `json:"grounded"`
	Citations []ContextCitation `json:"citations"`
	// Suggestions say what to try when nothing was grounded.
	Suggestions []string `json:"suggestions,omitempty"`
	Degraded    []string `json:"degraded,omitempty"`
	TookMS      float64  `json:"took_ms"`
}

// ContextCitation is one merged range of one file used in the block.
type ContextCitation struct {
	Vault     string  `json:"vault"`
	Path      string  `json:"path"`
	AbsPath   string  `json:"abs_path"`
	LineStart int     `json:"line_start"`
	LineEnd   int     `json:"line_end"`
	Heading   string  `json:"heading"`
	Score     float64 `json:"score"`
	// Cite is the citation as written in the block: "path:Lstart-Lend".
	Cite string `json:"cite"`
	// Stale is set when the file changed since it was indexed: the lines
	// may no longer hold this text.
	Stale bool `json:"stale,omitempty"`
}

// SimilarRequest is the body of POST /v1/similar: notes related to a note
// (an editor's "related notes" panel).
type SimilarRequest struct {
	Vault string `json:"vault,omitempty"` // needed when several vaults hold Path
	Path  string `json:"path"`            // vault-relative, or absolute inside a vault
	K     int    `json:"k,omitempty"`     // notes to return (default 10)
}

// SimilarResponse lists related notes, best first; the note itself is
// never among them.
type SimilarResponse struct {
	Vault    string        `json:"vault"`
	Path     string        `json:"path"`
	Notes    []SimilarNote `json:"notes"`
	Degraded []string      `json:"degraded,omitempty"`
	TookMS   float64       `json:"took_ms"`
}

// SimilarNote is one related note with the chunk that relates it best.
type SimilarNote struct {
	Vault     string  `json:"vault"`
	Path      string  `json:"path"`
	AbsPath   string  `json:"abs_path"`
	Title     string  `json:"title"`
	Score     float64 `json:"score"`
	LineStart int     `json:"line_start"`
	LineEnd   int     `json:"line_end"`
	Heading   string  `json:"heading"`
	// Why is "vector", "links", "terms" or a combination joined by "+".
	Why string `json:"why"`
}
