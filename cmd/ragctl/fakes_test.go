package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/ipc/ipctest"
	"github.com/ragd/ragd/query/doctext"
)

// fakeBackend answers with canned data and records searches.
type fakeBackend struct {
	mu       sync.Mutex
	searches []ipc.SearchRequest
	results  []ipc.Result
	reindex  *ipc.ReindexResponse
	// reindexDelay makes Reindex take that long, for progress displays.
	reindexDelay time.Duration
	// statuses are answered in turn, the last one repeatedly; sampleStatus
	// when empty.
	statuses []*ipc.StatusResponse
	runs     []ipc.Run
	runLimit int // the limit of the last Runs call
	// events are sent to each subscriber, and the stream then ends if
	// closeEvents is set (as when the daemon shuts down).
	events      []ipc.Event
	closeEvents bool
	// graph answers graph queries by query name (empty answers for the
	// others); graphs records the requests.
	graph  map[string]*ipc.GraphResponse
	graphs []ipc.GraphRequest
}

func (f *fakeBackend) Search(ctx context.Context, req ipc.SearchRequest) (*ipc.SearchResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.searches = append(f.searches, req)
	if len(req.Vaults) == 1 && req.Vaults[0] == "nope" {
		return nil, ipc.NotFound("no vault named %q", "nope")
	}
	// Like the daemon, answer an empty list (not null) when nothing matches.
	results := append([]ipc.Result{}, f.results...)
	return &ipc.SearchResponse{Query: req.Query, Results: results, TookMS: 0.25}, nil
}

func (f *fakeBackend) Status(ctx context.Context) (*ipc.StatusResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.statuses) == 0 {
		return sampleStatus(), nil
	}
	st := f.statuses[0]
	if len(f.statuses) > 1 {
		f.statuses = f.statuses[1:]
	}
	return st, nil
}

func (f *fakeBackend) Reindex(ctx context.Context, req ipc.ReindexRequest) (*ipc.ReindexResponse, error) {
	f.mu.Lock()
	delay := f.reindexDelay
	f.mu.Unlock()
	select {
	case <-time.After(delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.reindex != nil {
		return f.reindex, nil
	}
	return &ipc.ReindexResponse{Done: req.Wait, Vaults: []ipc.ReindexResult{{Vault: "notes", Indexed: 3, Unchanged: 10}}}, nil
}

func (f *fakeBackend) Runs(ctx context.Context, limit int) (*ipc.RunsResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runLimit = limit
	return &ipc.RunsResponse{Runs: f.runs[:min(limit, len(f.runs))]}, nil
}

func (f *fakeBackend) Graph(ctx context.Context, req ipc.GraphRequest) (*ipc.GraphResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.graphs = append(f.graphs, req)
	if g := f.graph[req.Query]; g != nil {
		resp := *g
		resp.Query = req.Query
		return &resp, nil
	}
	return &ipc.GraphResponse{Query: req.Query}, nil
}

func (f *fakeBackend) Subscribe() (<-chan ipc.Event, func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ch := make(chan ipc.Event, len(f.events))
	for _, ev := range f.events {
		ch <- ev
	}
	if f.closeEvents {
		close(ch)
	}
	return ch, func() {}
}

func (f *fakeBackend) lastSearch() ipc.SearchRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.searches) == 0 {
		return ipc.SearchRequest{}
	}
	return f.searches[len(f.searches)-1]
}

// serveFake serves f with the local API's real handler on a real Unix
// socket and returns its path.
func serveFake(t *testing.T, f *fakeBackend) string { return ipctest.Serve(t, f).Socket }

// isolate keeps run from finding the user's socket or configuration.
func isolate(t *testing.T) string {
	dir := ipctest.ShortDir(t)
	t.Setenv("RAGD_SOCKET", filepath.Join(dir, "env.sock"))
	t.Setenv("RAGD_CONFIG", filepath.Join(dir, "missing.toml"))
	return dir
}

// runCmd runs ragctl with args, stdout not a terminal.
func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runCmdUntil(t, false, nil, args...)
}

// runCmdUntil runs ragctl with args, stdout a terminal if tty is set. If
// until is not nil, the context is cancelled (like SIGINT) as soon as
// until(stdout so far) holds; the test fails if that never happens.
func runCmdUntil(t *testing.T, tty bool, until func(stdout string) bool, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a bound, not an expectation
	defer cancel()
	out := &cancelWriter{until: until, cancel: cancel}
	var errb bytes.Buffer
	code = run(ctx, args, out, &errb, terminal{tty: tty})
	if until != nil && !out.met {
		t.Errorf("%q: the expected output never came: %q (stderr %q)", args, out.String(), errb.String())
	}
	return code, out.String(), errb.String()
}

// cancelWriter collects output and calls cancel once until holds for it.
// It does not embed the buffer, whose WriteString would bypass Write.
type cancelWriter struct {
	buf    bytes.Buffer
	until  func(string) bool
	cancel context.CancelFunc
	met    bool
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	n, err := w.buf.Write(p)
	if w.until != nil && !w.met && w.until(w.buf.String()) {
		w.met = true
		w.cancel()
	}
	return n, err
}

func (w *cancelWriter) String() string { return w.buf.String() }

// Document reads files of the status's vaults with the daemon's own reader
// (query/doctext); the vault is the one named, the one whose root holds an
// absolute path, or the only one holding a relative path.
func (f *fakeBackend) Document(ctx context.Context, req ipc.DocumentRequest) (*ipc.DocumentResponse, error) {
	st, _ := f.Status(ctx)
	var cands []ipc.VaultStatus
	for _, v := range st.Vaults {
		if req.Vault == "" || v.Name == req.Vault {
			cands = append(cands, v)
		}
	}
	if len(cands) == 0 {
		return nil, ipc.NotFound("no vault named %q", req.Vault)
	}
	rel := filepath.ToSlash(req.Path)
	var v ipc.VaultStatus
	if filepath.IsAbs(req.Path) {
		found := false
		for _, c := range cands {
			if r, err := filepath.Rel(c.Path, req.Path); err == nil && filepath.IsLocal(r) {
				v, rel, found = c, filepath.ToSlash(r), true
			}
		}
		if !found {
			return nil, ipc.NotFound("%s is not inside any configured vault", req.Path)
		}
	} else {
		var have []ipc.VaultStatus
		for _, c := range cands {
			if _, err := os.Lstat(filepath.Join(c.Path, rel)); err == nil && filepath.IsLocal(rel) {
				have = append(have, c)
			}
		}
		switch {
		case len(have) > 1:
			return nil, ipc.BadRequest("%s exists in vaults %s, %s: name one with vault", rel, have[0].Name, have[1].Name)
		case len(have) == 1:
			v = have[0]
		default:
			v = cands[0]
		}
	}
	t, err := doctext.Read(doctext.Request{Root: v.Path, Rel: rel, From: req.LineStart, To: req.LineEnd})
	switch {
	case errors.Is(err, doctext.ErrNotFound):
		return nil, ipc.NotFound("%s is not indexed in vault %q", rel, v.Name)
	case err != nil:
		return nil, ipc.BadRequest("%v", err)
	}
	return &ipc.DocumentResponse{Vault: v.Name, Path: rel, Kind: "markdown", Text: t.Text, LineStart: t.LineStart,
		LineEnd: t.LineEnd, Lines: t.Lines, Truncated: t.Truncated, NextLine: t.NextLine}, nil
}
