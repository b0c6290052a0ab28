package ragdtest

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Embedder is an Ollama server for a real ragd's built-in "ollama"
// embedder: POST /api/embed answers deterministic vectors of Dims
// dimensions. While it is held, the embeddings of documents wait (the
// daemon has an embedding backlog it cannot clear) until Release; queries
// are answered at once, so searches still work.
type Embedder struct {
	srv *httptest.Server

	mu       sync.Mutex
	released chan struct{} // closed by Release
	done     bool
	waiting  int // document requests held now
}

// EmbedderDims is the dimension of the fake embedder's vectors.
const EmbedderDims = 8

// Prefixes the embedder is configured with ("nomic" style): how the fake
// tells a query from a document.
const (
	queryPrefix    = "search_query: "
	documentPrefix = "search_document: "
)

// NewEmbedder starts the server, held when held is true. It is closed when
// the test ends (released first, so no request is left waiting).
func NewEmbedder(t testing.TB, held bool) *Embedder {
	t.Helper()
	f := &Embedder{released: make(chan struct{})}
	if !held {
		f.Release()
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/embed", f.embed)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(func() {
		f.Release()
		f.srv.Close()
	})
	return f
}

// Plugin is the configuration of an embedder plugin called name on this
// server and of the search using it: a [[plugin]] table and [search].
// Calls never time out, so a held request waits as long as the test needs.
func (f *Embedder) Plugin(name string) string {
	return fmt.Sprintf(`
[[plugin]]
name = %q
kind = "embedder"
builtin = "ollama"
timeout = "1h"
[plugin.options]
model = "fake"
base_url = %q
dimensions = %d
prefix = "nomic"
timeout = "1h"

[search]
embedder = %q
`, name, f.srv.URL, EmbedderDims, name)
}

// Release lets every held and future request through.
func (f *Embedder) Release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.done {
		f.done = true
		close(f.released)
	}
}

// Waiting is the number of document requests held now.
func (f *Embedder) Waiting() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.waiting
}

func (f *Embedder) embed(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Input []string `json:"input"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	if len(req.Input) > 0 && strings.HasPrefix(req.Input[0], documentPrefix) {
		f.mu.Lock()
		f.waiting++
		f.mu.Unlock()
		select {
		case <-f.released:
		case <-r.Context().Done():
		}
		f.mu.Lock()
		f.waiting--
		f.mu.Unlock()
		if r.Context().Err() != nil {
			return
		}
	}
	out := make([][]float32, len(req.Input))
	for i, s := range req.Input {
		out[i] = fakeVector(strings.TrimPrefix(strings.TrimPrefix(s, documentPrefix), queryPrefix))
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"embeddings": out})
}

// fakeVector is a vector of EmbedderDims dimensions derived from the
// words of s: texts sharing words point in similar directions.
func fakeVector(s string) []float32 {
	v := make([]float32, EmbedderDims)
	v[0] = 0.01 // never the zero vector
	for _, word := range strings.Fields(strings.ToLower(s)) {
		h := fnv.New32a()
		h.Write([]byte(word))
		x := h.Sum32()
		v[x%EmbedderDims] += 1
		v[(x>>8)%EmbedderDims] += 0.5
	}
	return v
}
