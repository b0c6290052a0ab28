package httprerank

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/plugins"
)

// relevance is the fake cross-encoder: the share of the query's words
// that occur in the document, plus a small length-based tiebreak.
func relevance(query, doc string) float64 {
	words := strings.Fields(strings.ToLower(query))
	doc = strings.ToLower(doc)
	n := 0
	for _, w := range words {
		if strings.Contains(doc, w) {
			n++
		}
	}
	return float64(n)/float64(max(len(words), 1)) + 1/float64(len(doc)+10)
}

// fakeServer speaks the four rerank APIs with their real routes and
// shapes; unknown request fields are a 400/422 as on the real servers.
type fakeServer struct {
	teiMaxBatch int
	// fail may answer request n itself (return true).
	fail func(w http.ResponseWriter, n int) bool
	// drop, when set, leaves this index out of every reply.
	drop int

	mu     sync.Mutex
	bodies []map[string]any
	auth   []string
	srv    *httptest.Server
}

func newFake(t *testing.T) *fakeServer {
	f := &fakeServer{teiMaxBatch: 32, drop: -1}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v2/rerank", f.cohere)    // api.cohere.com/v2
	mux.HandleFunc("POST /jina/v1/rerank", f.jina) // api.jina.ai/v1
	mux.HandleFunc("POST /rerank", f.tei)          // TEI router
	mux.HandleFunc("POST /v1/rerank", f.llamacpp)  // llama-server
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.bodies)
}

func (f *fakeServer) record(w http.ResponseWriter, r *http.Request, req any) bool {
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
	if err := dec.Decode(req); err != nil {
		w.WriteHeader(http.StatusUnprocessableEntity)
		fmt.Fprintf(w, `{"message":"invalid request: %s"}`, strings.ReplaceAll(err.Error(), `"`, `'`))
		return false
	}
	return true
}

type ranked struct {
	Index int     `json:"index"`
	Score float64 `json:"relevance_score"`
}

// rank scores docs and sorts by score, best first, cut to topN (>0).
func (f *fakeServer) rank(query string, docs []string, topN int) []ranked {
	var out []ranked
	for i, d := range docs {
		if i != f.drop {
			out = append(out, ranked{i, relevance(query, d)})
		}
	}
	slices.SortStableFunc(out, func(a, b ranked) int { return cmp.Compare(b.Score, a.Score) })
	if topN > 0 && topN < len(out) {
		out = out[:topN]
	}
	return out
}

func (f *fakeServer) cohere(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model           string   `json:"model"`
		Query           string   `json:"query"`
		Documents       []string `json:"documents"`
		TopN            int      `json:"top_n"`
		MaxTokensPerDoc int      `json:"max_tokens_per_doc"`
	}
	if !f.record(w, r, &req) {
		return
	}
	if req.Model == "" {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"id":"x","message":"invalid request: model must be specified"}`))
		return
	}
	json.NewEncoder(w).Encode(map[string]any{
		"id": "7c1b", "results": f.rank(req.Query, req.Documents, req.TopN),
		"meta": map[string]any{"api_version": map[string]any{"version": "2"}, "billed_units": map[string]int{"search_units": 1}},
	})
}

func (f *fakeServer) jina(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model           string   `json:"model"`
		Query           string   `json:"query"`
		Documents       []string `json:"documents"`
		TopN            int      `json:"top_n"`
		ReturnDocuments *bool    `json:"return_documents"`
	}
	if !f.record(w, r, &req) {
		return
	}
	res := f.rank(req.Query, req.Documents, req.TopN)
	var out []map[string]any
	for _, x := range res {
		m := map[string]any{"index": x.Index, "relevance_score": x.Score}
		if req.ReturnDocuments == nil || *req.ReturnDocuments {
			m["document"] = map[string]string{"text": req.Documents[x.Index]}
		}
		out = append(out, m)
	}
	json.NewEncoder(w).Encode(map[string]any{
		"model": req.Model, "usage": map[string]int{"total_tokens": 42}, "results": out})
}

func (f *fakeServer) tei(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Query               string   `json:"query"`
		Texts               []string `json:"texts"`
		Truncate            bool     `json:"truncate"`
		RawScores           bool     `json:"raw_scores"`
		ReturnText          bool     `json:"return_text"`
		TruncationDirection string   `json:"truncation_direction"`
	}
	if !f.record(w, r, &req) {
		return
	}
	if len(req.Texts) > f.teiMaxBatch {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		fmt.Fprintf(w, `{"error":"batch size %d > maximum allowed batch size %d","error_type":"Validation"}`,
			len(req.Texts), f.teiMaxBatch)
		return
	}
	var out []map[string]any
	for _, x := range f.rank(req.Query, req.Texts, 0) {
		out = append(out, map[string]any{"index": x.Index, "score": x.Score})
	}
	json.NewEncoder(w).Encode(out)
}

func (f *fakeServer) llamacpp(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model     string   `json:"model"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		TopN      *int     `json:"top_n"`
	}
	if !f.record(w, r, &req) {
		return
	}
	topN := len(req.Documents)
	if req.TopN != nil {
		topN = *req.TopN
	}
	json.NewEncoder(w).Encode(map[string]any{
		"model": "bge-reranker-v2-m3", "object": "list",
		"usage":   map[string]int{"prompt_tokens": 12, "total_tokens": 12},
		"results": f.rank(req.Query, req.Documents, topN),
	})
}

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

func configured(t *testing.T, opts plugins.Options) (*Reranker, *sleeps) {
	t.Helper()
	r := New()
	if err := r.Configure(context.Background(), opts); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	s := &sleeps{}
	r.client.Sleep = s.sleep
	return r, s
}
