// Package peer runs the search engines ragd is measured against (SQLite
// FTS5 and Bleve) as a separate process, ragd-peer, that indexes a folder
// of notes or a BEIR corpus and answers queries as JSON lines on its stdin
// and stdout. Keeping the engines in their own process keeps them out of
// ragd's and ragctl's binaries and lets the benchmarks measure each
// engine's whole-process memory. This package holds the wire types, the
// document sources, the serving loop and the client that starts the
// process; the engines live in the fts5 and blevepeer subpackages.
package peer

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Engine names accepted by ragd-peer -engine.
const (
	EngineFTS5        = "fts5"         // SQLite FTS5, tokenize='porter unicode61'
	EngineFTS5Trigram = "fts5-trigram" // SQLite FTS5, tokenize='trigram'
	EngineBleve       = "bleve"        // Bleve v2, English analyzer, BM25
)

// Engines lists every engine name, for usage messages.
var Engines = []string{EngineFTS5, EngineFTS5Trigram, EngineBleve}

// Ops of a Request.
const (
	OpSearch = "search" // the default
	OpUpdate = "update" // re-read one vault file (or delete it if gone)
)

// Request is one line on ragd-peer's stdin.
type Request struct {
	Op    string `json:"op,omitempty"`
	Query string `json:"q,omitempty"`
	K     int    `json:"k,omitempty"`
	// Path is the vault-relative, slash-separated file an update names.
	Path string `json:"path,omitempty"`
}

// Response is the line ragd-peer writes for each Request.
type Response struct {
	// IDs are the ranked document ids of a search: vault-relative paths
	// or BEIR corpus ids, each at most once.
	IDs    []string `json:"ids,omitempty"`
	TookMS float64  `json:"took_ms"`
	Error  string   `json:"error,omitempty"`
}

// Ready is the first line ragd-peer writes, once its index is built (or
// opened, when the index directory already held one) and queries can be
// answered.
type Ready struct {
	Engine  string  `json:"engine"`
	Docs    int     `json:"docs"`
	Opened  bool    `json:"opened"` // an existing index was opened, nothing built
	IndexMS float64 `json:"index_ms"`
	Error   string  `json:"error,omitempty"`
}

// Engine is what ragd-peer serves.
type Engine interface {
	// Build indexes every document each yields, in batches.
	Build(each func(func(Doc) error) error) error
	// Put adds or replaces one document; it is searchable on return.
	Put(Doc) error
	// Delete removes a document; a missing one is not an error.
	Delete(id string) error
	// Search returns at most k document ids, best first.
	Search(query string, k int) ([]string, error)
	// Count returns how many documents are indexed.
	Count() (int, error)
	Close() error
}

// Serve answers requests from r on w until r ends. Reader loads a vault
// file for an update (nil when the source is not a vault).
func Serve(eng Engine, load func(path string) (Doc, bool, error), r io.Reader, w io.Writer) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	for sc.Scan() {
		var req Request
		var resp Response
		start := time.Now()
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			resp.Error = fmt.Sprintf("bad request: %v", err)
		} else if err := handle(eng, load, req, &resp); err != nil {
			resp.Error = err.Error()
		}
		resp.TookMS = float64(time.Since(start).Microseconds()) / 1000
		if err := enc.Encode(&resp); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

func handle(eng Engine, load func(string) (Doc, bool, error), req Request, resp *Response) error {
	switch req.Op {
	case "", OpSearch:
		k := req.K
		if k <= 0 {
			k = 10
		}
		ids, err := eng.Search(req.Query, k)
		resp.IDs = ids
		return err
	case OpUpdate:
		if load == nil {
			return errors.New("update: the index was not built from a vault")
		}
		d, ok, err := load(req.Path)
		if err != nil {
			return err
		}
		if !ok {
			return eng.Delete(req.Path)
		}
		return eng.Put(d)
	default:
		return fmt.Errorf("unknown op %q: use %s or %s", req.Op, OpSearch, OpUpdate)
	}
}
