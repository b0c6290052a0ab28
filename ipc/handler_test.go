package ipc_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

// fakeBackend is an ipc.Backend that records what it was asked and answers
// with canned responses, or with the error set for the call.
type fakeBackend struct {
	mu          sync.Mutex
	searches    []ipc.SearchRequest
	contexts    []ipc.ContextRequest
	reindexes   []ipc.ReindexRequest
	statusCalls int
	deadline    bool // whether the last Search context had a deadline

	searchErr  error
	statusErr  error
	reindexErr error
	// results, when non-nil, is what Search returns; otherwise one hit
	// echoing the query.
	results []ipc.Result
	status  *ipc.StatusResponse
	// events are sent to every subscriber.
	events    []ipc.Event
	runLimits []int
	graphs    []ipc.GraphRequest
}

func (f *fakeBackend) Search(ctx context.Context, req ipc.SearchRequest) (*ipc.SearchResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.searches = append(f.searches, req)
	_, f.deadline = ctx.Deadline()
	if f.searchErr != nil {
		return nil, f.searchErr
	}
	res := f.results
	if res == nil {
		res = []ipc.Result{{
			ID: "c1", Vault: "notes", Path: "Restic Backups.md", AbsPath: "/v/Restic Backups.md",
			Title: "Restic Backups", LineStart: 3, LineEnd: 9, Heading: "Restic Backups > Retention",
			Headings: []string{"Restic Backups", "Retention"}, Score: 4.25, Text: "keep 7 daily snapshots: " + req.Query,
		}}
	}
	return &ipc.SearchResponse{Query: req.Query, Results: res, TookMS: 0.5}, nil
}

func (f *fakeBackend) Status(ctx context.Context) (*ipc.StatusResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.statusCalls++
	if f.statusErr != nil {
		return nil, f.statusErr
	}
	if f.status != nil {
		return f.status, nil
	}
	return &ipc.StatusResponse{
		State: ipc.StateIdle, Version: "test", Protocol: ipc.ProtocolVersion, PID: 42,
		StartedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		DataDir:   "/data", Socket: "/run/ragd.sock", Semantic: "off",
		Vaults: []ipc.VaultStatus{{Name: "notes", Path: "/v", Online: true, Documents: 12, Chunks: 80}},
	}, nil
}

func (f *fakeBackend) Reindex(ctx context.Context, req ipc.ReindexRequest) (*ipc.ReindexResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reindexes = append(f.reindexes, req)
	if f.reindexErr != nil {
		return nil, f.reindexErr
	}
	return &ipc.ReindexResponse{
		Vaults: []ipc.ReindexResult{{Vault: "notes", Indexed: 2, Unchanged: 10, Removed: 1}},
		Done:   req.Wait,
	}, nil
}

func (f *fakeBackend) Runs(ctx context.Context, limit int) (*ipc.RunsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runLimits = append(f.runLimits, limit)
	start := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	return &ipc.RunsResponse{Runs: []ipc.Run{{ID: "r1", Vault: "notes", Trigger: "startup", Start: start, Indexed: 3}}}, nil
}

// Subscribe streams f.events, then keeps the stream open until stopped.
func (f *fakeBackend) Subscribe() (<-chan ipc.Event, func()) {
	ch := make(chan ipc.Event, len(f.events))
	for _, ev := range f.events {
		ch <- ev
	}
	return ch, func() {}
}

func (f *fakeBackend) Graph(ctx context.Context, req ipc.GraphRequest) (*ipc.GraphResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.graphs = append(f.graphs, req)
	if req.Query == "nope" {
		return nil, ipc.NotFound("no such graph query %q", req.Query)
	}
	return &ipc.GraphResponse{Query: req.Query, Total: 1, Links: []ipc.GraphLink{{Vault: "notes", Source: "a.md", Type: "links_to", Target: req.Note, Line: 3}}}, nil
}

func (f *fakeBackend) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.searches) + len(f.reindexes) + f.statusCalls
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

func TestHandler(t *testing.T) {
	longQuery := strings.Repeat("a", ipc.MaxQueryBytes)
	tests := []struct {
		name    string
		method  string
		path    string
		body    string
		header  map[string]string
		backend func(*fakeBackend) // sets errors before the request
		code    int
		// wantErr is a substring of the JSON error message; empty for a
		// successful answer.
		wantErr string
		// noCall says the backend must not have been called.
		noCall bool
		check  func(t *testing.T, f *fakeBackend, body []byte)
	}{
		{
			name: "search happy path", method: "POST", path: "/v1/search",
			body: `{"query":"  restic retention \n","k":3,"vaults":["notes","work"],"path_prefix":"ops/","no_text":true}`,
			code: 200,
			check: func(t *testing.T, f *fakeBackend, body []byte) {
				want := ipc.SearchRequest{Query: "restic retention", K: 3, Vaults: []string{"notes", "work"}, PathPrefix: "ops/", NoText: true}
				if len(f.searches) != 1 || !equalSearch(f.searches[0], want) {
					t.Errorf("backend got %+v, want %+v", f.searches, want)
				}
				if !f.deadline {
					t.Error("search context has no deadline")
				}
				var resp ipc.SearchResponse
				if err := json.Unmarshal(body, &resp); err != nil {
					t.Fatalf("decode response: %v", err)
				}
				if resp.Query != "restic retention" || len(resp.Results) != 1 || resp.Results[0].Path != "Restic Backups.md" || resp.Results[0].LineStart != 3 {
					t.Errorf("response = %+v", resp)
				}
			},
		},
		{
			name: "search default k", method: "POST", path: "/v1/search", body: `{"query":"x"}`, code: 200,
			check: func(t *testing.T, f *fakeBackend, _ []byte) {
				if f.searches[0].K != ipc.DefaultK {
					t.Errorf("k = %d, want default %d", f.searches[0].K, ipc.DefaultK)
				}
			},
		},
		{name: "search k at max", method: "POST", path: "/v1/search", body: fmt.Sprintf(`{"query":"x","k":%d}`, ipc.MaxK), code: 200},
		{name: "search k 1", method: "POST", path: "/v1/search", body: `{"query":"x","k":1}`, code: 200},
		{name: "search trailing whitespace", method: "POST", path: "/v1/search", body: "{\"query\":\"x\"}\n\t \n", code: 200},
		{name: "empty query", method: "POST", path: "/v1/search", body: `{"query":""}`, code: 400, wantErr: "query is empty", noCall: true},
		{name: "blank query", method: "POST", path: "/v1/search", body: `{"query":" \t\n\u00a0"}`, code: 400, wantErr: "query is empty", noCall: true},
		{name: "empty body", method: "POST", path: "/v1/search", body: ``, code: 400, wantErr: "query is empty", noCall: true},
		{name: "null body", method: "POST", path: "/v1/search", body: `null`, code: 400, wantErr: "query is empty", noCall: true},
		{name: "k negative", method: "POST", path: "/v1/search", body: `{"query":"x","k":-1}`, code: 400, wantErr: "k must be between 1 and 1000, got -1", noCall: true},
		{name: "k over max", method: "POST", path: "/v1/search", body: fmt.Sprintf(`{"query":"x","k":%d}`, ipc.MaxK+1), code: 400, wantErr: "k must be between 1 and 1000", noCall: true},
		{name: "k not an integer", method: "POST", path: "/v1/search", body: `{"query":"x","k":2.5}`, code: 400, wantErr: "invalid request body", noCall: true},
		{name: "k huge", method: "POST", path: "/v1/search", body: `{"query":"x","k":99999999999999999999999}`, code: 400, wantErr: "invalid request body", noCall: true},
		{name: "query wrong type", method: "POST", path: "/v1/search", body: `{"query":42}`, code: 400, wantErr: "invalid request body", noCall: true},
		{name: "unknown field", method: "POST", path: "/v1/search", body: `{"query":"x","top_k":3}`, code: 400, wantErr: `unknown field "top_k"`, noCall: true},
		{name: "trailing object", method: "POST", path: "/v1/search", body: `{"query":"x"} {"query":"y"}`, code: 400, wantErr: "trailing data", noCall: true},
		{name: "trailing garbage", method: "POST", path: "/v1/search", body: `{"query":"x"}garbage`, code: 400, wantErr: "trailing data", noCall: true},
		{name: "trailing bracket", method: "POST", path: "/v1/search", body: `{"query":"x"}]`, code: 400, wantErr: "trailing data", noCall: true},
		{name: "truncated JSON", method: "POST", path: "/v1/search", body: `{"query":"x"`, code: 400, wantErr: "invalid request body", noCall: true},
		{name: "not an object", method: "POST", path: "/v1/search", body: `["x"]`, code: 400, wantErr: "invalid request body", noCall: true},
		{
			name: "body over MaxRequestBytes", method: "POST", path: "/v1/search",
			body: `{"query":"` + strings.Repeat("a", ipc.MaxRequestBytes) + `"}`,
			code: 413, wantErr: fmt.Sprintf("request body over %d bytes", ipc.MaxRequestBytes), noCall: true,
		},
		{
			name: "whitespace padding over MaxRequestBytes", method: "POST", path: "/v1/search",
			body: `{"query":"x"}` + strings.Repeat(" ", ipc.MaxRequestBytes),
			code: 413, wantErr: "request body over", noCall: true,
		},
		{
			name: "query at MaxQueryBytes", method: "POST", path: "/v1/search", body: `{"query":"` + longQuery + `"}`, code: 200,
			check: func(t *testing.T, f *fakeBackend, _ []byte) {
				if f.searches[0].Query != longQuery {
					t.Errorf("query changed: %d bytes", len(f.searches[0].Query))
				}
			},
		},
		{
			name: "query over MaxQueryBytes", method: "POST", path: "/v1/search", body: `{"query":"` + longQuery + `b"}`,
			code: 400, wantErr: fmt.Sprintf("query is %d bytes, over the limit of %d", ipc.MaxQueryBytes+1, ipc.MaxQueryBytes), noCall: true,
		},
		{
			// The limit is on the query after trimming.
			name: "query at MaxQueryBytes with padding", method: "POST", path: "/v1/search", body: `{"query":"  ` + longQuery + `  "}`, code: 200,
		},
		{name: "invalid UTF-8 in query", method: "POST", path: "/v1/search", body: "{\"query\":\"caf\xe9\"}", code: 400, wantErr: "not valid UTF-8", noCall: true},
		{name: "overlong UTF-8 in query", method: "POST", path: "/v1/search", body: "{\"query\":\"a\xc0\xafb\"}", code: 400, wantErr: "not valid UTF-8", noCall: true},
		{name: "invalid UTF-8 in vault", method: "POST", path: "/v1/search", body: "{\"query\":\"x\",\"vaults\":[\"\xff\"]}", code: 400, wantErr: "not valid UTF-8", noCall: true},
		{
			name: "escaped non-ASCII query", method: "POST", path: "/v1/search", body: `{"query":"caf\u00e9 \ud83d\ude00"}`, code: 200,
			check: func(t *testing.T, f *fakeBackend, _ []byte) {
				if got := f.searches[0].Query; got != "café 😀" {
					t.Errorf("query = %q", got)
				}
			},
		},
		{name: "unknown path", method: "GET", path: "/v1/nope", code: 404, wantErr: "no such endpoint: GET /v1/nope", noCall: true},
		{name: "root path", method: "GET", path: "/", code: 404, wantErr: "no such endpoint", noCall: true},
		{name: "unversioned path", method: "POST", path: "/search", body: `{"query":"x"}`, code: 404, wantErr: "no such endpoint", noCall: true},
		// The catch-all "/" pattern matches every method, so ServeMux never
		// answers its plain-text 405: a wrong method gets the JSON 404.
		{name: "GET search", method: "GET", path: "/v1/search", code: 405, wantErr: "method not allowed (use POST)", noCall: true},
		{name: "POST status", method: "POST", path: "/v1/status", body: `{}`, code: 405, wantErr: "method not allowed (use GET)", noCall: true},
		{name: "DELETE reindex", method: "DELETE", path: "/v1/reindex", code: 405, wantErr: "DELETE /v1/reindex: method not allowed (use POST)", noCall: true},
		{
			name: "newer protocol", method: "POST", path: "/v1/search", body: `{"query":"x"}`,
			header: map[string]string{ipc.HeaderProtocol: strconv.Itoa(ipc.ProtocolVersion + 1)},
			code:   426, wantErr: "upgrade ragd", noCall: true,
		},
		{
			name: "newer protocol on status", method: "GET", path: "/v1/status",
			header: map[string]string{ipc.HeaderProtocol: "99"},
			code:   426, wantErr: fmt.Sprintf(`client speaks protocol "99", this ragd speaks %d`, ipc.ProtocolVersion), noCall: true,
		},
		{
			name: "garbled protocol", method: "GET", path: "/v1/status",
			header: map[string]string{ipc.HeaderProtocol: "v1"},
			code:   426, wantErr: `client speaks protocol "v1"`, noCall: true,
		},
		{
			name: "same protocol", method: "POST", path: "/v1/search", body: `{"query":"x"}`,
			header: map[string]string{ipc.HeaderProtocol: strconv.Itoa(ipc.ProtocolVersion)}, code: 200,
		},
		{
			name: "older protocol", method: "GET", path: "/v1/status",
			header: map[string]string{ipc.HeaderProtocol: "0"}, code: 200,
		},
		{
			name: "backend not found", method: "POST", path: "/v1/search", body: `{"query":"x","vaults":["nope"]}`,
			backend: func(f *fakeBackend) { f.searchErr = ipc.NotFound("no vault named %q", "nope") },
			code:    404, wantErr: `no vault named "nope"`,
		},
		{
			name: "backend wrapped error keeps status", method: "POST", path: "/v1/reindex", body: `{"path":"../x"}`,
			backend: func(f *fakeBackend) {
				f.reindexErr = fmt.Errorf("reindex: %w", ipc.BadRequest("path %q escapes the vault", "../x"))
			},
			code: 400, wantErr: `reindex: path "../x" escapes the vault`,
		},
		{
			name: "backend plain error", method: "POST", path: "/v1/search", body: `{"query":"x"}`,
			backend: func(f *fakeBackend) { f.searchErr = errors.New("badger: disk on fire") },
			code:    500, wantErr: "badger: disk on fire",
		},
		{
			name: "backend error without status", method: "GET", path: "/v1/status",
			backend: func(f *fakeBackend) { f.statusErr = &ipc.Error{Message: "no status"} },
			code:    500, wantErr: "no status",
		},
		{
			name: "status", method: "GET", path: "/v1/status", code: 200,
			check: func(t *testing.T, f *fakeBackend, body []byte) {
				var st ipc.StatusResponse
				if err := json.Unmarshal(body, &st); err != nil {
					t.Fatal(err)
				}
				if st.State != ipc.StateIdle || len(st.Vaults) != 1 || st.Vaults[0].Documents != 12 {
					t.Errorf("status = %+v", st)
				}
			},
		},
		{name: "HEAD status", method: "HEAD", path: "/v1/status", code: 200},
		{
			name: "reindex empty body", method: "POST", path: "/v1/reindex", code: 200,
			check: func(t *testing.T, f *fakeBackend, body []byte) {
				if len(f.reindexes) != 1 || f.reindexes[0] != (ipc.ReindexRequest{}) {
					t.Errorf("backend got %+v", f.reindexes)
				}
				var resp ipc.ReindexResponse
				if err := json.Unmarshal(body, &resp); err != nil || resp.Done || len(resp.Vaults) != 1 {
					t.Errorf("response %s (%v)", body, err)
				}
			},
		},
		{
			name: "reindex with body", method: "POST", path: "/v1/reindex", body: `{"vault":"notes","path":"ops/","wait":true}`, code: 200,
			check: func(t *testing.T, f *fakeBackend, _ []byte) {
				if want := (ipc.ReindexRequest{Vault: "notes", Path: "ops/", Wait: true}); f.reindexes[0] != want {
					t.Errorf("backend got %+v, want %+v", f.reindexes[0], want)
				}
			},
		},
		{name: "reindex unknown field", method: "POST", path: "/v1/reindex", body: `{"vault":"notes","force":true}`, code: 400, wantErr: `unknown field "force"`, noCall: true},
		{name: "reindex trailing garbage", method: "POST", path: "/v1/reindex", body: `{}x`, code: 400, wantErr: "trailing data", noCall: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeBackend{}
			if tt.backend != nil {
				tt.backend(f)
			}
			h := ipc.NewHandler(f, discardLogger())
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			req := httptest.NewRequest(tt.method, tt.path, body)
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			res := rec.Result()
			got, _ := io.ReadAll(res.Body)

			if res.StatusCode != tt.code {
				t.Fatalf("status = %d, want %d; body %s", res.StatusCode, tt.code, got)
			}
			if v := res.Header.Get(ipc.HeaderProtocol); v != strconv.Itoa(ipc.ProtocolVersion) {
				t.Errorf("%s header = %q, want %d", ipc.HeaderProtocol, v, ipc.ProtocolVersion)
			}
			if ct := res.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			if tt.method != "HEAD" {
				if !json.Valid(got) {
					t.Errorf("body is not JSON: %q", got)
				}
			}
			if tt.code/100 != 2 {
				var e ipc.ErrorResponse
				dec := json.NewDecoder(bytes.NewReader(got))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&e); err != nil {
					t.Fatalf("error body %q is not an ErrorResponse: %v", got, err)
				}
				if e.Error == "" || !strings.Contains(e.Error, tt.wantErr) {
					t.Errorf("error = %q, want it to contain %q", e.Error, tt.wantErr)
				}
			}
			if tt.noCall && f.calls() != 0 {
				t.Errorf("backend was called %d times, want none", f.calls())
			}
			if tt.check != nil {
				tt.check(t, f, got)
			}
		})
	}
}

func equalSearch(a, b ipc.SearchRequest) bool {
	if a.Query != b.Query || a.K != b.K || a.PathPrefix != b.PathPrefix || a.NoText != b.NoText || len(a.Vaults) != len(b.Vaults) {
		return false
	}
	for i := range a.Vaults {
		if a.Vaults[i] != b.Vaults[i] {
			return false
		}
	}
	return true
}

// A wrong method on a served path is 405 with Allow; an unknown path 404.
func TestMethodNotAllowed(t *testing.T) {
	h := ipc.NewHandler(nil, slog.New(slog.DiscardHandler))
	for _, tt := range []struct {
		method, path string
		code         int
		allow        string
	}{
		{"GET", "/v1/search", http.StatusMethodNotAllowed, "POST"},
		{"DELETE", "/v1/status", http.StatusMethodNotAllowed, "GET"},
		{"POST", "/v1/graph/backlinks", http.StatusMethodNotAllowed, "GET"},
		{"GET", "/v1/nope", http.StatusNotFound, ""},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
		if rec.Code != tt.code || rec.Header().Get("Allow") != tt.allow {
			t.Errorf("%s %s: %d, Allow %q; want %d, %q (%s)", tt.method, tt.path, rec.Code, rec.Header().Get("Allow"), tt.code, tt.allow, rec.Body)
		}
	}
}
