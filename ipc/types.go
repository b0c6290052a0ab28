package ipc

import "time"

// SearchRequest is the body of POST /v1/search.
type SearchRequest struct {
	Query string `json:"query"`
	K     int    `json:"k,omitempty"` // default DefaultK, at most MaxK
	// Vaults restricts the search to these vaults (all when empty).
	Vaults []string `json:"vaults,omitempty"`
	// PathPrefix restricts the search to files whose vault-relative path
	// starts with it (a folder like "projects/" or a file).
	PathPrefix string `json:"path_prefix,omitempty"`
	// NoText omits result text (for evaluation and pickers that only need
	// the citation).
	NoText bool `json:"no_text,omitempty"`
	// Channels limits retrieval to some channels (ChannelLexical,
	// ChannelVector, ChannelGraph; "bm25" is read as "lexical"). Empty
	// means what Mode implies.
	Channels []string `json:"channels,omitempty"`
	// Weights overrides the fusion weight of channels for this query, e.g.
	// {"graph": 0.5}; unset channels keep the daemon's weights.
	Weights map[string]float64 `json:"weights,omitempty"`
	// Mode is hybrid (default), lexical or vector.
	Mode string `json:"mode,omitempty"`
	// Explain adds each channel's rank and score to every result.
	Explain bool `json:"explain,omitempty"`
	// Fusion overrides the daemon's fusion function: "convex" or "rrf".
	Fusion string `json:"fusion,omitempty"`
	// NoRerank skips the reranker for this query.
	NoRerank bool `json:"no_rerank,omitempty"`
	// Passages is how many passages of each note to return (default 1):
	// results come note by note, best passage first; K counts notes.
	Passages int `json:"passages,omitempty"`
	// SnippetWidth is the width of each result's snippet, in characters
	// (default 240).
	SnippetWidth int `json:"snippet_width,omitempty"`
}

// SearchResponse is the answer to a search.
type SearchResponse struct {
	Query   string   `json:"query"`
	Results []Result `json:"results"`
	// TookMS is the time spent inside the daemon.
	TookMS float64 `json:"took_ms"`
	// Grounded is false when no result cleared the relevance floor; then
	// Results is empty and Suggestions says what to try.
	Grounded    bool     `json:"grounded"`
	Suggestions []string `json:"suggestions,omitempty"`
	// Degraded lists channels that could not answer (e.g. "vector" when the
	// embedder is down or not configured).
	Degraded []string `json:"degraded,omitempty"`
	// EmbedMS is the part of TookMS spent embedding the query.
	EmbedMS float64 `json:"embed_ms,omitempty"`
}

// Result is one retrieved chunk with its citation. It is also the query
// engine's result type (query.Result): the engine fills it and the daemon
// sends it as it is, so a field added here is filled in one place, the
// engine's cand.result.
type Result struct {
	ID        string   `json:"id"` // stable chunk id
	Vault     string   `json:"vault"`
	Path      string   `json:"path"` // relative to the vault root, slash-separated
	AbsPath   string   `json:"abs_path"`
	Title     string   `json:"title"`
	LineStart int      `json:"line_start"` // 1-based, inclusive
	LineEnd   int      `json:"line_end"`
	Heading   string   `json:"heading"` // heading path joined with " > "
	Headings  []string `json:"headings,omitempty"`
	Score     float64  `json:"score"`
	Text      string   `json:"text,omitempty"` // the exact text of those lines' byte range
	Page      int      `json:"page,omitempty"` // PDF page of LineStart (extracted documents)
	Parent    *Parent  `json:"parent,omitempty"`
	Explain   *Explain `json:"explain,omitempty"`
	Stale     bool     `json:"stale,omitempty"` // the file changed since indexing
	// Snippet is a window of Text around the matched terms, for display.
	Snippet *Snippet `json:"snippet,omitempty"`
	// Matches are the byte ranges [start, end) of matched terms in Text.
	Matches [][2]int `json:"matches,omitempty"`
}

// Snippet is the part of a result's text worth showing: lines LineStart
// to LineEnd of the file, with the byte ranges [start, end) of matched
// terms in Text (UTF-8).
type Snippet struct {
	Text      string   `json:"text"`
	LineStart int      `json:"line_start"`
	LineEnd   int      `json:"line_end"`
	Matches   [][2]int `json:"matches,omitempty"`
}

// State values of StatusResponse.State.
const (
	StateIndexing = "indexing" // files are being (or are queued to be) indexed
	// StateEmbedding: every file is indexed (searchable by keywords) but
	// chunks still wait for vectors (Vector.Pending), also while the
	// embedder is failing (Vector.LastError says why), and until the
	// similarity floor is measured on the vectors just stored.
	StateEmbedding = "embedding"
	StateIdle      = "idle" // nothing left to do
)

// StatusResponse is the answer to GET /v1/status.
type StatusResponse struct {
	State     string         `json:"state"`
	Version   string         `json:"version"`
	Protocol  int            `json:"protocol"`
	PID       int            `json:"pid"`
	StartedAt time.Time      `json:"started_at"`
	Config    string         `json:"config,omitempty"`
	DataDir   string         `json:"data_dir"`
	Socket    string         `json:"socket"`
	Vaults    []VaultStatus  `json:"vaults"`
	Progress  *Progress      `json:"progress,omitempty"` // while indexing
	Graph     *GraphStatus   `json:"graph,omitempty"`
	Vector    *VectorStatus  `json:"vector,omitempty"`
	Plugins   []PluginStatus `json:"plugins,omitempty"`
	// Semantic says whether vector search is configured (not yet: lexical
	// BM25 only) and how to turn it on.
	Semantic string `json:"semantic"`
	// DiskFull is set while indexing is paused because the data directory's
	// disk has too little room to write safely ("disk full: N MB free on
	// DIR, …"). Queries are answered from what is committed; indexing
	// resumes by itself when room returns.
	DiskFull string `json:"disk_full,omitempty"`
}

// VaultStatus describes one configured vault.
type VaultStatus struct {
	Name          string       `json:"name"`
	Path          string       `json:"path"`
	Online        bool         `json:"online"`
	Documents     int          `json:"documents"`
	Chunks        int          `json:"chunks"`
	Failed        int          `json:"failed"`
	FailedFiles   []FailedFile `json:"failed_files,omitempty"`
	LastReconcile *time.Time   `json:"last_reconcile,omitempty"`
	LastError     string       `json:"last_error,omitempty"`
	// Watching is "watching" (fsnotify), "polling" (the watch limit was
	// reached: periodic scans only), "off" (watch = false) or "offline".
	Watching string `json:"watching"`
	// Queued counts indexing passes waiting for this vault.
	Queued int `json:"queued"`
	// Offline says why the vault is offline (its folder is missing, or
	// empty while documents are indexed from it); its index is kept and
	// served, and it is watched again when it returns.
	Offline string `json:"offline,omitempty"`
	// HeldDeletions is set while a pass would remove more than half of the
	// vault's documents at once: nothing is removed until the files return
	// or the removal is confirmed (ReindexRequest.ConfirmDeletions).
	HeldDeletions *HeldDeletions `json:"held_deletions,omitempty"`
	// Unreadable lists (up to 200) folders that could not be read or
	// watched; they are skipped, what is indexed under them is kept, and
	// the rest of the vault stays watched.
	Unreadable []SkippedPath `json:"unreadable,omitempty"`
	// Special counts the files the vault's rules admit that are not
	// regular files in the vault (named pipes, sockets, devices, symbolic
	// links leading out of it or nowhere); SpecialFiles lists up to 200.
	Special      int           `json:"special,omitempty"`
	SpecialFiles []SkippedPath `json:"special_files,omitempty"`
}

// SkippedPath is a folder or file an indexing pass passed over, and why.
type SkippedPath struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// HeldDeletions describes removals held back for confirmation.
type HeldDeletions struct {
	Missing   int       `json:"missing"`   // indexed documents no longer on disk
	Documents int       `json:"documents"` // documents indexed from the vault
	Since     time.Time `json:"since"`
}

// FailedFile is a file that was skipped, with the reason.
type FailedFile struct {
	Path  string `json:"path"`
	Error string `json:"error"`
}

// Progress reports an indexing pass in flight.
type Progress struct {
	Vault   string `json:"vault"`   // "" when the pass covers every vault
	Trigger string `json:"trigger"` // startup, watch, periodic, manual
	Total   int64  `json:"total"`   // files to examine
	Done    int64  `json:"done"`    // files examined so far
	// Rate is files per second so far; ETASeconds the estimated time left.
	Rate       float64 `json:"rate"`
	ETASeconds float64 `json:"eta_seconds"`
}

// Event is one line of the GET /v1/events NDJSON stream.
type Event struct {
	Type  string    `json:"type"` // one of the Event* constants
	Time  time.Time `json:"time"`
	Vault string    `json:"vault,omitempty"`
	Path  string    `json:"path,omitempty"`
	Error string    `json:"error,omitempty"`
	// Run is set on run_started and run_finished.
	Run *Run `json:"run,omitempty"`
}

// Event types.
const (
	EventIndexed     = "indexed"      // a file was (re)indexed
	EventRemoved     = "removed"      // a file's document was removed
	EventFailed      = "failed"       // a file was skipped; Error says why
	EventRunStarted  = "run_started"  // an ingestion run began
	EventRunFinished = "run_finished" // an ingestion run ended
	EventLagged      = "lagged"       // this subscriber fell behind and missed events
)

// Run is an ingestion run: one reconcile or batch of changes in one vault.
type Run struct {
	ID        string     `json:"id"`
	Vault     string     `json:"vault"`
	Trigger   string     `json:"trigger"` // startup, watch, periodic, manual
	Paths     int        `json:"paths"`   // changed paths it covered; 0 = the whole vault
	Start     time.Time  `json:"start"`
	End       *time.Time `json:"end,omitempty"`
	Indexed   int        `json:"indexed"`
	Unchanged int        `json:"unchanged"`
	Removed   int        `json:"removed"`
	Failed    int        `json:"failed"`
	Error     string     `json:"error,omitempty"`
}

// RunsResponse is the answer to GET /v1/runs?limit=N, newest first.
type RunsResponse struct {
	Runs []Run `json:"runs"`
}

// ReindexRequest is the body of POST /v1/reindex. With neither field set
// every vault is reconciled.
type ReindexRequest struct {
	Vault string `json:"vault,omitempty"`
	// Path is a vault-relative file or folder; requires Vault unless only
	// one vault is configured.
	Path string `json:"path,omitempty"`
	// Wait makes the call return only when the pass is finished.
	Wait bool `json:"wait,omitempty"`
	// ConfirmDeletions lets this pass remove documents whose files are
	// gone even when that empties the vault or removes more than half of
	// it (which is otherwise held: VaultStatus.HeldDeletions, Offline).
	ConfirmDeletions bool `json:"confirm_deletions,omitempty"`
}

// ReindexResponse is the answer to a reindex.
type ReindexResponse struct {
	Vaults []ReindexResult `json:"vaults"`
	// Done reports whether the pass finished (Wait was set).
	Done bool `json:"done"`
}

// ReindexResult counts what a pass did in one vault.
type ReindexResult struct {
	Vault     string `json:"vault"`
	Indexed   int    `json:"indexed"`
	Unchanged int    `json:"unchanged"`
	Removed   int    `json:"removed"`
	Failed    int    `json:"failed"`
	Error     string `json:"error,omitempty"`
}

// ErrorResponse is the body of every non-2xx answer.
type ErrorResponse struct {
	Error string `json:"error"`
}

// Graph queries, GET /v1/graph/{query}.
const (
	GraphBacklinks  = "backlinks"  // note=NOTE: links pointing at a note
	GraphLinks      = "links"      // note=NOTE: links a note holds
	GraphNeighbors  = "neighbors"  // entity=NOTE|#tag, hops=N
	GraphEntities   = "entities"   // type=note|tag|person|… (optional)
	GraphUnresolved = "unresolved" // links to notes that do not exist
)

// GraphRequest is a graph query; the fields it needs depend on Query.
type GraphRequest struct {
	Query  string `json:"query"`
	Vault  string `json:"vault,omitempty"`
	Note   string `json:"note,omitempty"`   // path, file name or alias
	Entity string `json:"entity,omitempty"` // a note or "#tag"
	Hops   int    `json:"hops,omitempty"`   // neighbors: 1 (default) to 3
	Type   string `json:"type,omitempty"`   // entities: "note", "tag" or a model-found type ("person", …)
	Limit  int    `json:"limit,omitempty"`  // at most this many rows (default 1000)
}

// GraphResponse answers a graph query: Links for backlinks, links and
// unresolved; Entities for neighbors and entities.
type GraphResponse struct {
	Query    string        `json:"query"`
	Links    []GraphLink   `json:"links,omitempty"`
	Entities []GraphEntity `json:"entities,omitempty"`
	Total    int           `json:"total"` // rows before Limit
}

// GraphLink is one relation: a link, embed or tag in a source note.
type GraphLink struct {
	Vault       string   `json:"vault"`
	Source      string   `json:"source"` // path of the note holding it
	SourceTitle string   `json:"source_title"`
	Type        string   `json:"type"`   // links_to, embeds, tagged
	Target      string   `json:"target"` // as written
	Heading     string   `json:"heading,omitempty"`
	Block       string   `json:"block,omitempty"`
	Line        int      `json:"line"` // line of the link in the source
	Provenance  string   `json:"provenance"`
	Resolved    []string `json:"resolved,omitempty"` // notes it points at; empty = unresolved
}

// GraphEntity is a note, a tag or a typed entity found by a model.
type GraphEntity struct {
	Vault    string   `json:"vault"`
	Type     string   `json:"type"` // note, tag
	Name     string   `json:"name"`
	Path     string   `json:"path,omitempty"`
	Aliases  []string `json:"aliases,omitempty"`
	Incoming int      `json:"incoming"` // relations pointing at it
	Hops     int      `json:"hops,omitempty"`
}

// GraphStatus summarises the entity graph in status.
type GraphStatus struct {
	Notes      int    `json:"notes"`
	Tags       int    `json:"tags"`
	Typed      int    `json:"typed,omitempty"` // typed entities a model found (PERSON, ...)
	Relations  int    `json:"relations"`
	Unresolved int    `json:"unresolved"`
	Consistent bool   `json:"consistent"`
	Problem    string `json:"problem,omitempty"`
}
