package ipc

// PluginsResponse is the answer to GET /v1/plugins.
type PluginsResponse struct {
	Plugins []PluginStatus `json:"plugins"`
}

// Plugin states.
const (
	PluginStarting = "starting"
	PluginRunning  = "running"
	PluginFailed   = "failed"   // exited or failed its handshake; restarting with backoff
	PluginDisabled = "disabled" // gave up, or not started
	PluginIdle     = "idle"     // started on first use, not used yet
)

// PluginStatus describes one configured plugin.
type PluginStatus struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Command string `json:"command"`
	Builtin bool   `json:"builtin"`
	// InProcess: a built-in served in the daemon's own process (no PID).
	InProcess bool    `json:"in_process,omitempty"`
	State     string  `json:"state"`
	PID       int     `json:"pid,omitempty"`
	Restarts  int     `json:"restarts"`
	LastError string  `json:"last_error,omitempty"`
	Calls     int64   `json:"calls"`
	Errors    int64   `json:"errors"`
	P50MS     float64 `json:"p50_ms"`
	P95MS     float64 `json:"p95_ms"`
	// Info is the plugin's self-description (model, dimensions, ...).
	Info map[string]string `json:"info,omitempty"`
}

// VectorStatus reports the vector index in status.
type VectorStatus struct {
	Embedder  string `json:"embedder"`  // plugin name
	Signature string `json:"signature"` // model, dims, prefixes
	Vectors   int    `json:"vectors"`
	Pending   int    `json:"pending"` // chunks waiting for embeddings
	// Index is "hnsw", "exact" (below the HNSW threshold), or "rebuilding".
	Index string `json:"index"`
	// Reembedding is set while a changed signature re-embeds in the
	// background; the old vectors keep serving until the swap.
	Reembedding bool   `json:"reembedding,omitempty"`
	Note        string `json:"note,omitempty"` // e.g. "snapshot was stale: rebuilt from Badger"
	// Floor is the similarity a query's best vector hit must reach to
	// count as evidence (calibrated on the index, or min_similarity).
	Floor     float64 `json:"floor,omitempty"`
	LastError string  `json:"last_error,omitempty"`
}
