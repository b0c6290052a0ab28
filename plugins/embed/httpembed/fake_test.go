package httpembed

import (
	"bytes"
	"context"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/plugins"
)

// fakeServer speaks the Ollama and OpenAI embedding APIs strictly: unknown
// request fields are rejected with 400, as a real server would with a
// malformed body. Each reply vector is derived from its input text.
type fakeServer struct {
	t    *testing.T
	dims int
	// fail, when set, may answer a request itself (return true).
	fail func(w http.ResponseWriter, n int) bool

	mu     sync.Mutex
	inputs [][]string       // per request
	bodies []map[string]any // per request, decoded loosely
	auth   []string         // Authorization header per request
	srv    *httptest.Server
}

func newFake(t *testing.T, dims int) *fakeServer {
	f := &fakeServer{t: t, dims: dims}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/embed", f.ollama)
	mux.HandleFunc("POST /v1/embeddings", f.openai)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

// record decodes body into req strictly and notes the request; it returns
// false after answering 400.
func (f *fakeServer) record(w http.ResponseWriter, r *http.Request, req any, input func() []string) bool {
	var buf bytes.Buffer
	buf.ReadFrom(r.Body)
	var loose map[string]any
	json.Unmarshal(buf.Bytes(), &loose)
	f.mu.Lock()
	n := len(f.bodies)
	f.bodies = append(f.bodies, loose)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if f.fail != nil && f.fail(w, n) {
		return false
	}
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	if err := dec.Decode(req); err != nil || r.Header.Get("Content-Type") != "application/json" {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": "bad request"})
		return false
	}
	f.mu.Lock()
	f.inputs = append(f.inputs, input())
	f.mu.Unlock()
	return true
}

// vector is the fake model: dims components from the text's hash.
func vector(text string, dims int) []float32 {
	h := fnv.New64a()
	h.Write([]byte(text))
	s := h.Sum64()
	v := make([]float32, dims)
	for i := range v {
		s = s*6364136223846793005 + 1442695040888963407
		v[i] = float32(int64(s>>33)%1000) / 100
	}
	return v
}

func (f *fakeServer) ollama(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model      string   `json:"model"`
		Input      []string `json:"input"`
		Truncate   *bool    `json:"truncate"`
		Dimensions int      `json:"dimensions"`
		KeepAlive  string   `json:"keep_alive"`
	}
	if !f.record(w, r, &req, func() []string { return req.Input }) {
		return
	}
	if req.Model == "" {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": "model is required"})
		return
	}
	dims := f.dims
	if req.Dimensions > 0 && req.Dimensions < dims {
		dims = req.Dimensions
	}
	embs := make([][]float32, len(req.Input))
	for i, s := range req.Input {
		embs[i] = vector(s, dims)
	}
	json.NewEncoder(w).Encode(map[string]any{
		"model": req.Model, "embeddings": embs,
		"total_duration": 1234, "load_duration": 12, "prompt_eval_count": 7,
	})
}

func (f *fakeServer) openai(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string   `json:"model"`
		Input          []string `json:"input"`
		Dimensions     int      `json:"dimensions"`
		EncodingFormat string   `json:"encoding_format"`
		User           string   `json:"user"`
	}
	if !f.record(w, r, &req, func() []string { return req.Input }) {
		return
	}
	if req.EncodingFormat != "float" {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": "want float", "type": "invalid_request_error"}})
		return
	}
	dims := f.dims
	if req.Dimensions > 0 && req.Dimensions < dims {
		dims = req.Dimensions
	}
	// Reply in reverse order: clients must sort by index.
	var data []map[string]any
	for i := len(req.Input) - 1; i >= 0; i-- {
		data = append(data, map[string]any{
			"object": "embedding", "index": i, "embedding": vector(req.Input[i], dims)})
	}
	json.NewEncoder(w).Encode(map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": 3, "total_tokens": 3},
	})
}

// sleeps records the backoff delays instead of waiting.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return nil
}

// configured returns an Embedder configured with opts and recording sleeps.
func configured(t *testing.T, opts plugins.Options) (*Embedder, *sleeps) {
	t.Helper()
	e := New()
	if err := e.Configure(context.Background(), opts); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	s := &sleeps{}
	e.client.Sleep = s.sleep
	return e, s
}
