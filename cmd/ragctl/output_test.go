package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the current output")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

var testNow = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) *time.Time {
	t := testNow.Add(-d)
	return &t
}

func sampleResults() []ipc.Result {
	return []ipc.Result{
		{
			ID: "c1", Vault: "notes", Path: "Restic Backups.md", Title: "Restic Backups",
			LineStart: 12, LineEnd: 20, Heading: "Restic Backups > Retention", Score: 7.12345,
			Text: "Keep 7 daily,\n4 weekly and   12 monthly snapshots:\n\n    restic forget --keep-daily 7",
		},
		{
			// No heading: the title is shown instead.
			ID: "c2", Vault: "journal", Path: "2024/2024-03-14.md", Title: "2024-03-14",
			LineStart: 1, LineEnd: 4, Score: 3.5, Text: "Nightly backup failed: repository locked. Ran `restic unlock`.",
		},
		{
			// Neither heading nor title nor text (a NoText search).
			ID: "c3", Vault: "notes", Path: "ZFS Pool.md", LineStart: 40, LineEnd: 41, Score: 0.0004,
		},
		{
			// Text longer than the snippet, with multi-byte runes.
			ID: "c4", Vault: "notes", Path: "Ünïcode/Café.md", Title: "Café", Heading: "Café > Crème brûlée",
			LineStart: 100, LineEnd: 180, Score: 12,
			Text: strings.Repeat("Crème brûlée — ", 20),
		},
	}
}

func TestPrintResultsGolden(t *testing.T) {
	tests := []struct {
		name string
		resp *ipc.SearchResponse
	}{
		{"results.golden", &ipc.SearchResponse{Query: "restic retention", Results: sampleResults(), TookMS: 1.5}},
		{"results-empty.golden", &ipc.SearchResponse{Query: `no "such" thing`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			printResults(&b, tt.resp)
			golden(t, tt.name, b.Bytes())
		})
	}
}

func sampleStatus() *ipc.StatusResponse {
	return &ipc.StatusResponse{
		State: ipc.StateIdle, Version: "v0.1.0", Protocol: 1, PID: 4242,
		StartedAt: testNow.Add(-(3*time.Hour + 25*time.Minute + 7*time.Second + 400*time.Millisecond)),
		Config:    "/home/u/.config/ragd/ragd.toml",
		DataDir:   "/home/u/.local/share/ragd",
		Socket:    "/run/user/1000/ragd/ragd.sock",
		Semantic:  "off (lexical BM25 only)",
		Graph:     &ipc.GraphStatus{Notes: 12, Tags: 9, Relations: 40, Unresolved: 1, Consistent: true},
		Vector:    &ipc.VectorStatus{Embedder: "embed", Vectors: 5000, Pending: 12, Index: "hnsw"},
		Plugins: []ipc.PluginStatus{{Name: "pdf", Kind: "extractor", State: ipc.PluginRunning},
			{Name: "embed", Kind: "embedder", State: ipc.PluginRunning}, {Name: "heuristic", Kind: "reranker", State: ipc.PluginIdle}},
		Vaults: []ipc.VaultStatus{
			{
				Name: "notes", Path: "/home/u/notes", Online: true, Documents: 1234, Chunks: 56789, Failed: 3,
				FailedFiles:   []ipc.FailedFile{{Path: "big.md", Error: "file is 80 MB, over max_file_mb 50"}},
				LastReconcile: ago(90 * time.Second), Watching: "watching",
			},
			{
				Name: "usb", Path: "/media/usb/vault", Online: false, Documents: 7, Chunks: 20,
				LastReconcile: ago(48 * time.Hour), LastError: "vault root is missing", Watching: "offline",
			},
			{Name: "new", Path: "/home/u/new", Online: true, Watching: "polling"},
		},
	}
}

func TestPrintStatusGolden(t *testing.T) {
	indexing := sampleStatus()
	indexing.State = ipc.StateIndexing
	indexing.Config = ""
	indexing.Progress = &ipc.Progress{Vault: "notes", Total: 120, Done: 45}
	indexing.Vaults = indexing.Vaults[:1]
	indexing.Vaults[0].Failed = 1
	indexing.Vaults[0].Queued = 2
	indexing.Vaults[0].Watching = "off"

	// A daemon that does not report watch modes shows "-".
	old := sampleStatus()
	old.Vaults = old.Vaults[2:]
	old.Vaults[0].Watching = ""

	empty := sampleStatus()
	empty.Vaults = nil

	tests := []struct {
		name string
		st   *ipc.StatusResponse
	}{
		{"status.golden", sampleStatus()},
		{"status-indexing.golden", indexing},
		{"status-no-vaults.golden", empty},
		{"status-no-watching.golden", old},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			printStatus(&b, tt.st, testNow)
			golden(t, tt.name, b.Bytes())
		})
	}
}

func TestSnippet(t *testing.T) {
	tests := []struct {
		text string
		n    int
		want string
	}{
		{"", 10, ""},
		{"  \n\t ", 10, ""},
		{"a\n\nb   c", 10, "a b c"},
		{"abcdef", 6, "abcdef"},
		{"abcdefg", 6, "abcde…"},
		{"ééééééé", 4, "ééé…"},
	}
	for _, tt := range tests {
		if got := snippet(tt.text, tt.n); got != tt.want {
			t.Errorf("snippet(%q, %d) = %q, want %q", tt.text, tt.n, got, tt.want)
		}
	}
}

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

// shortDir is a temporary directory short enough for a socket path.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ragd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// serveFake serves ipc.NewHandler(f) on a real Unix socket and returns its
// path.
func serveFake(t *testing.T, f *fakeBackend) string {
	t.Helper()
	sock := filepath.Join(shortDir(t), "ragd.sock")
	log := slog.New(slog.DiscardHandler)
	ln, err := ipc.Listen(sock, log)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: ipc.NewHandler(f, log), ReadHeaderTimeout: 5 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	})
	return sock
}

// isolate keeps run from finding the user's socket or configuration.
func isolate(t *testing.T) string {
	dir := shortDir(t)
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
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	out := &cancelWriter{until: until, cancel: cancel}
	var errb bytes.Buffer
	code = run(ctx, args, out, &errb, tty)
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

func TestRunUsageErrors(t *testing.T) {
	isolate(t)
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no args", nil, "usage: ragctl"},
		{"only global flags", []string{"-socket", "/x.sock"}, "usage: ragctl"},
		{"unknown global flag", []string{"-nope"}, "flag provided but not defined: -nope"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"search without query", []string{"search"}, "usage: ragctl search"},
		{"search with blank query", []string{"search", " ", "\t"}, "usage: ragctl search"},
		{"search with only flags", []string{"search", "-k", "3", "--json"}, "usage: ragctl search"},
		{"search bad k", []string{"search", "-k", "many", "x"}, `invalid value "many" for flag -k`},
		{"search unknown flag", []string{"search", "--top", "3", "x"}, "flag provided but not defined: -top"},
		{"reindex two paths", []string{"reindex", "a", "b"}, "usage: ragctl reindex"},
		{"status unknown flag", []string{"status", "-verbose"}, "flag provided but not defined"},
		{"status watch and json", []string{"status", "-watch", "-json"}, "usage: ragctl status"},
		{"runs zero", []string{"runs", "-n", "0"}, "usage: ragctl runs"},
		{"runs over max", []string{"runs", "-n", "1001"}, "usage: ragctl runs"},
		{"runs bad n", []string{"runs", "-n", "all"}, `invalid value "all" for flag -n`},
		{"runs argument", []string{"runs", "notes"}, "usage: ragctl runs"},
		{"events argument", []string{"events", "notes"}, "usage: ragctl events"},
		{"events unknown flag", []string{"events", "-follow"}, "flag provided but not defined: -follow"},
		{"eval without source", []string{"eval"}, "usage: ragctl eval"},
		{"eval with both sources", []string{"eval", "-beir", "d", "-vault", "v", "-qrels", "q"}, "usage: ragctl eval"},
		{"eval vault without qrels", []string{"eval", "-vault", "v"}, "usage: ragctl eval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr %q lacks %q", stderr, tt.wantErr)
			}
			if stdout != "" {
				t.Errorf("usage error wrote to stdout: %q", stdout)
			}
		})
	}
}

func TestRunHelpAndVersion(t *testing.T) {
	isolate(t)
	for _, arg := range []string{"help", "-h"} {
		code, stdout, stderr := runCmd(t, arg)
		// -h is taken by the global FlagSet (flag.ErrHelp), help by run.
		if arg == "help" && (code != exitOK || !strings.Contains(stdout, "commands:")) {
			t.Errorf("help: exit %d, stdout %q", code, stdout)
		}
		if arg == "-h" && (code != exitUsage || !strings.Contains(stderr, "commands:")) {
			t.Errorf("-h: exit %d, stderr %q", code, stderr)
		}
	}
	code, stdout, _ := runCmd(t, "version")
	if code != exitOK || stdout != "ragctl (protocol 1)\n" {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}

func TestRunUnreachable(t *testing.T) {
	dir := isolate(t)
	sock := filepath.Join(dir, "nobody.sock")
	tests := [][]string{
		{"-socket", sock, "search", "restic"},
		{"search", "-socket", sock, "--json", "restic"},
		{"-socket", sock, "status"},
		{"-socket", sock, "reindex", "-wait"},
		{"-socket", sock, "status", "-watch"},
		{"-socket", sock, "runs"},
		{"runs", "-socket", sock, "-n", "5", "-json"},
		{"-socket", sock, "events"},
		{"-socket", sock, "events", "-json"},
		// Without -socket, $RAGD_SOCKET is used (nothing listens there).
		{"status", "--json"},
	}
	// On a terminal too: live views draw nothing before the daemon answers.
	for _, tty := range []bool{false, true} {
		for _, args := range tests {
			code, stdout, stderr := runCmdUntil(t, tty, nil, args...)
			if code != exitUnreachable {
				t.Errorf("%q (tty %v): exit %d, want %d", args, tty, code, exitUnreachable)
			}
			if !strings.Contains(stderr, "ragd is not running") || !strings.Contains(stderr, "start it with") {
				t.Errorf("%q (tty %v): stderr %q does not say ragd is not running", args, tty, stderr)
			}
			if stdout != "" {
				t.Errorf("%q (tty %v): stdout %q", args, tty, stdout)
			}
		}
	}
}

func TestRunSearch(t *testing.T) {
	isolate(t)
	f := &fakeBackend{results: sampleResults()}
	sock := serveFake(t, f)

	code, stdout, stderr := runCmd(t, "-socket", sock, "search", "-k", "4", "-vault", "notes,journal", "-path", "2024/", "restic", "retention")
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr %q", code, stderr)
	}
	want := ipc.SearchRequest{Query: "restic retention", K: 4, Vaults: []string{"notes", "journal"}, PathPrefix: "2024/"}
	got := f.lastSearch()
	if got.Query != want.Query || got.K != want.K || got.PathPrefix != want.PathPrefix || strings.Join(got.Vaults, ",") != "notes,journal" {
		t.Errorf("daemon got %+v, want %+v", got, want)
	}
	var b bytes.Buffer
	printResults(&b, &ipc.SearchResponse{Query: want.Query, Results: sampleResults()})
	if stdout != b.String() {
		t.Errorf("stdout differs from printResults:\n%s", stdout)
	}

	// The socket can also be given after the subcommand.
	if code, _, stderr := runCmd(t, "search", "-socket", sock, "restic"); code != exitOK {
		t.Errorf("search -socket: exit %d, stderr %q", code, stderr)
	}
	if got := f.lastSearch(); got.K != ipc.DefaultK || got.Vaults != nil {
		t.Errorf("defaults: daemon got %+v", got)
	}

	// A daemon error is exit 1 with its message.
	code, _, stderr = runCmd(t, "-socket", sock, "search", "-vault", "nope", "x")
	if code != exitFail || !strings.Contains(stderr, `no vault named "nope"`) {
		t.Errorf("unknown vault: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCmd(t, "-socket", sock, "search", "-k", "5000", "x")
	if code != exitFail || !strings.Contains(stderr, "k must be between 1 and 1000") {
		t.Errorf("k over max: exit %d, stderr %q", code, stderr)
	}
}

func TestRunSearchNoHits(t *testing.T) {
	isolate(t)
	sock := serveFake(t, &fakeBackend{})
	code, stdout, stderr := runCmd(t, "-socket", sock, "search", "zebra")
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	if stdout != "no results for \"zebra\"\n" || stderr != "" {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}

	code, stdout, _ = runCmd(t, "-socket", sock, "search", "--json", "zebra")
	if code != exitFail {
		t.Errorf("--json: exit %d, want %d", code, exitFail)
	}
	var resp struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &resp); err != nil || resp.Results == nil || len(resp.Results) != 0 {
		t.Errorf("--json with no hits: %q (%v): want an empty results array", stdout, err)
	}
}

func TestRunSearchJSON(t *testing.T) {
	isolate(t)
	sock := serveFake(t, &fakeBackend{results: sampleResults()})
	code, stdout, stderr := runCmd(t, "-socket", sock, "search", "--json", "restic")
	if code != exitOK {
		t.Fatalf("exit %d; stderr %q", code, stderr)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, stdout)
	}
	if out["query"] != "restic" {
		t.Errorf("query = %v", out["query"])
	}
	results, ok := out["results"].([]any)
	if !ok || len(results) != len(sampleResults()) {
		t.Fatalf("results = %v", out["results"])
	}
	first, _ := results[0].(map[string]any)
	for _, key := range []string{"vault", "path", "line_start", "line_end", "heading", "score", "text"} {
		if _, ok := first[key]; !ok {
			t.Errorf("result lacks %q: %v", key, first)
		}
	}
	if first["vault"] != "notes" || first["path"] != "Restic Backups.md" || first["line_start"] != 12.0 ||
		first["line_end"] != 20.0 || first["heading"] != "Restic Backups > Retention" || first["score"] != 7.12345 {
		t.Errorf("first result = %v", first)
	}
}

func TestRunStatus(t *testing.T) {
	isolate(t)
	sock := serveFake(t, &fakeBackend{})

	code, stdout, stderr := runCmd(t, "-socket", sock, "status", "--json")
	if code != exitOK {
		t.Fatalf("exit %d; stderr %q", code, stderr)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("status --json is not JSON: %v\n%s", err, stdout)
	}
	if out["state"] != ipc.StateIdle {
		t.Errorf("state = %v", out["state"])
	}
	vaults, ok := out["vaults"].([]any)
	if !ok || len(vaults) != 3 {
		t.Fatalf("vaults = %v", out["vaults"])
	}
	for _, v := range vaults {
		m, _ := v.(map[string]any)
		for _, key := range []string{"name", "path", "documents", "chunks", "failed"} {
			if _, ok := m[key]; !ok {
				t.Errorf("vault lacks %q: %v", key, m)
			}
		}
	}
	if m := vaults[0].(map[string]any); m["name"] != "notes" || m["documents"] != 1234.0 || m["chunks"] != 56789.0 || m["failed"] != 3.0 {
		t.Errorf("first vault = %v", m)
	}

	code, stdout, _ = runCmd(t, "-socket", sock, "status")
	if code != exitOK || !strings.HasPrefix(stdout, "ragd v0.1.0, protocol 1, pid 4242, up ") || !strings.Contains(stdout, "VAULT") {
		t.Errorf("status: exit %d\n%s", code, stdout)
	}
}

func TestRunReindex(t *testing.T) {
	isolate(t)
	f := &fakeBackend{}
	sock := serveFake(t, f)

	code, stdout, _ := runCmd(t, "-socket", sock, "reindex")
	if code != exitOK || stdout != "reindex queued; `ragctl status` shows progress\n" {
		t.Errorf("reindex: exit %d, %q", code, stdout)
	}
	code, stdout, _ = runCmd(t, "-socket", sock, "reindex", "-wait", "-vault", "notes", "ops/")
	if code != exitOK || stdout != "notes: 3 indexed, 10 unchanged, 0 removed, 0 failed\n" {
		t.Errorf("reindex -wait: exit %d, %q", code, stdout)
	}

	f.mu.Lock()
	f.reindex = &ipc.ReindexResponse{Done: true, Vaults: []ipc.ReindexResult{{Vault: "usb", Error: "vault root is missing"}}}
	f.mu.Unlock()
	code, stdout, _ = runCmd(t, "-socket", sock, "reindex", "-wait")
	if code != exitFail || !strings.Contains(stdout, "error: vault root is missing") {
		t.Errorf("reindex with a vault error: exit %d, %q", code, stdout)
	}
}

func TestSocketResolution(t *testing.T) {
	dir := isolate(t)
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(dir, "runtime"))
	defaultSock := filepath.Join(dir, "runtime", "ragd", "ragd.sock")
	cfgSock := filepath.Join(dir, "cfg.sock")
	vault := filepath.Join(dir, "vault")
	if err := os.Mkdir(vault, 0o755); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.toml")
	if err := os.WriteFile(good, []byte("[daemon]\nsocket = \""+cfgSock+"\"\n\n[[vault]]\nname = \"notes\"\npath = \""+vault+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.toml")
	if err := os.WriteFile(broken, []byte("[daemon\nsocket = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name              string
		flag, env, config string
		want, wantWarning string
	}{
		{name: "flag wins", flag: "/flag.sock", env: "/env.sock", config: good, want: "/flag.sock"},
		{name: "environment", env: "/env.sock", config: good, want: "/env.sock"},
		{name: "configuration file", config: good, want: cfgSock},
		{name: "no configuration file", config: filepath.Join(dir, "missing.toml"), want: defaultSock},
		{name: "broken configuration file", config: broken, want: defaultSock, wantWarning: "ragctl: warning: cannot use the socket named in " + broken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("RAGD_SOCKET", tt.env)
			t.Setenv("RAGD_CONFIG", tt.config)
			var stderr bytes.Buffer
			e := &env{stdout: io.Discard, stderr: &stderr, socket: tt.flag}
			if got := e.socketPath(); got != tt.want {
				t.Errorf("socketPath = %q, want %q", got, tt.want)
			}
			if tt.wantWarning == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tt.wantWarning) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantWarning)
			}
		})
	}

	// End to end: the socket named in the configuration file is used.
	t.Setenv("RAGD_SOCKET", "")
	t.Setenv("RAGD_CONFIG", good)
	sock := serveFake(t, &fakeBackend{})
	if err := os.WriteFile(good, []byte("[daemon]\nsocket = \""+sock+"\"\n\n[[vault]]\nname = \"notes\"\npath = \""+vault+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCmd(t, "status"); code != exitOK {
		t.Errorf("status via the configured socket: exit %d, stderr %q", code, stderr)
	}
}
