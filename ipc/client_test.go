package ipc_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/ipc/ipctest"
)

// headerLog records the protocol header of every request.
type headerLog struct {
	mu       sync.Mutex
	versions []string
}

func (l *headerLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.versions = append(l.versions, r.Header.Get(ipc.HeaderProtocol))
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// serve runs h on ipc.Listen's listener and returns the socket path.
func serve(t *testing.T, h http.Handler) string { return ipctest.ServeHTTP(t, h).Socket }

func newClient(t *testing.T, sock string) *ipc.Client {
	c := ipc.NewClient(sock)
	t.Cleanup(c.Close)
	return c
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestClientRoundTrip(t *testing.T) {
	f := &fakeBackend{}
	var hl headerLog
	sock := serve(t, hl.wrap(ipc.NewHandler(f, discardLogger())))
	c := newClient(t, sock)
	ctx := testContext(t)

	req := ipc.SearchRequest{Query: "restic retention", K: 4, Vaults: []string{"notes"}, PathPrefix: "ops/", NoText: true}
	sr, err := c.Search(ctx, req)
	if err != nil {
		t.Fatalf("Search: %v", err)
	}
	f.mu.Lock()
	if len(f.searches) != 1 || !equalSearch(f.searches[0], req) {
		t.Errorf("backend got %+v, want %+v", f.searches, req)
	}
	f.mu.Unlock()
	if sr.Query != req.Query || len(sr.Results) != 1 {
		t.Fatalf("search response = %+v", sr)
	}
	r := sr.Results[0]
	if r.Vault != "notes" || r.Path != "Restic Backups.md" || r.LineStart != 3 || r.LineEnd != 9 ||
		r.Score != 4.25 || len(r.Headings) != 2 || !strings.HasSuffix(r.Text, req.Query) {
		t.Errorf("result = %+v", r)
	}

	st, err := c.Status(ctx)
	if err != nil {
		t.Fatalf("Status: %v", err)
	}
	want, _ := (&fakeBackend{}).Status(ctx)
	if st.State != want.State || st.PID != want.PID || !st.StartedAt.Equal(want.StartedAt) ||
		!reflect.DeepEqual(st.Vaults, want.Vaults) {
		t.Errorf("status = %+v, want %+v", st, want)
	}

	rr, err := c.Reindex(ctx, ipc.ReindexRequest{Vault: "notes", Path: "ops/a.md", Wait: true})
	if err != nil {
		t.Fatalf("Reindex: %v", err)
	}
	if !rr.Done || len(rr.Vaults) != 1 || rr.Vaults[0].Indexed != 2 || rr.Vaults[0].Removed != 1 {
		t.Errorf("reindex response = %+v", rr)
	}
	f.mu.Lock()
	if want := (ipc.ReindexRequest{Vault: "notes", Path: "ops/a.md", Wait: true}); len(f.reindexes) != 1 || f.reindexes[0] != want {
		t.Errorf("backend got %+v, want %+v", f.reindexes, want)
	}
	f.mu.Unlock()

	hl.mu.Lock()
	defer hl.mu.Unlock()
	if len(hl.versions) != 3 {
		t.Fatalf("server saw %d requests, want 3", len(hl.versions))
	}
	for _, v := range hl.versions {
		if v != strconv.Itoa(ipc.ProtocolVersion) {
			t.Errorf("client sent %s %q, want %d", ipc.HeaderProtocol, v, ipc.ProtocolVersion)
		}
	}
}

func TestClientErrors(t *testing.T) {
	f := &fakeBackend{
		reindexErr: ipc.NotFound("no vault named %q", "nope"),
		statusErr:  errors.New("store closed"),
	}
	sock := serve(t, ipc.NewHandler(f, discardLogger()))
	c := newClient(t, sock)
	ctx := testContext(t)

	check := func(name string, err error, status int, msg string) {
		t.Helper()
		var e *ipc.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: error %v (%T), want *ipc.Error", name, err, err)
			return
		}
		if e.Status != status || e.Message != msg {
			t.Errorf("%s: got %d %q, want %d %q", name, e.Status, e.Message, status, msg)
		}
		var nr *ipc.NotRunningError
		if errors.As(err, &nr) {
			t.Errorf("%s: an HTTP error is reported as not running", name)
		}
	}
	_, err := c.Search(ctx, ipc.SearchRequest{Query: "   "})
	check("empty query", err, http.StatusBadRequest, "query is empty")
	_, err = c.Search(ctx, ipc.SearchRequest{Query: "x", K: ipc.MaxK + 1})
	check("k over max", err, http.StatusBadRequest, "k must be between 1 and 1000, got 1001")
	_, err = c.Reindex(ctx, ipc.ReindexRequest{Vault: "nope"})
	check("unknown vault", err, http.StatusNotFound, `no vault named "nope"`)
	_, err = c.Status(ctx)
	check("backend failure", err, http.StatusInternalServerError, "store closed")
}

// TestClientPlainTextError checks a non-JSON error body (from a proxy or a
// non-ragd server on the socket) still becomes an *ipc.Error.
func TestClientPlainTextError(t *testing.T) {
	sock := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream exploded", http.StatusBadGateway)
	}))
	_, err := newClient(t, sock).Status(testContext(t))
	var e *ipc.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T), want *ipc.Error", err, err)
	}
	if e.Status != http.StatusBadGateway || e.Message != "502 Bad Gateway: upstream exploded" {
		t.Errorf("got %d %q", e.Status, e.Message)
	}
}

func TestClientNotRunning(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, sock string)
	}{
		{"no socket file", func(t *testing.T, sock string) {}},
		{"stale socket file", func(t *testing.T, sock string) {
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			ln.(*net.UnixListener).SetUnlinkOnClose(false)
			ln.Close()
		}},
		{"missing directory", func(t *testing.T, sock string) {
			if err := os.Remove(filepath.Dir(sock)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sock := filepath.Join(ipctest.ShortDir(t), "ragd.sock")
			tt.setup(t, sock)
			c := newClient(t, sock)
			ctx := testContext(t)
			calls := map[string]func() error{
				"Search":  func() error { _, err := c.Search(ctx, ipc.SearchRequest{Query: "x"}); return err },
				"Status":  func() error { _, err := c.Status(ctx); return err },
				"Reindex": func() error { _, err := c.Reindex(ctx, ipc.ReindexRequest{}); return err },
			}
			for name, call := range calls {
				err := call()
				var nr *ipc.NotRunningError
				if !errors.As(err, &nr) {
					t.Fatalf("%s: error %v (%T), want *ipc.NotRunningError", name, err, err)
				}
				if nr.Socket != sock || nr.Err == nil {
					t.Errorf("%s: NotRunningError = %+v", name, nr)
				}
				msg := err.Error()
				for _, want := range []string{"ragd is not running", sock, "start it with `ragd`", "systemctl --user start ragd"} {
					if !strings.Contains(msg, want) {
						t.Errorf("%s: message %q lacks %q", name, msg, want)
					}
				}
			}
		})
	}
}

func TestClientRunsAndEvents(t *testing.T) {
	f := &fakeBackend{events: []ipc.Event{
		{Type: ipc.EventIndexed, Vault: "notes", Path: "a.md"},
		{Type: ipc.EventFailed, Vault: "notes", Path: "b.md", Error: "empty file"},
	}}
	c := newClient(t, serve(t, ipc.NewHandler(f, discardLogger())))
	runs, err := c.Runs(context.Background(), 5)
	if err != nil || len(runs.Runs) != 1 || runs.Runs[0].ID != "r1" {
		t.Fatalf("runs = %+v, %v", runs, err)
	}
	if len(f.runLimits) != 1 || f.runLimits[0] != 5 {
		t.Errorf("limit sent = %v", f.runLimits)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got []ipc.Event
	errDone := errors.New("done")
	err = c.Events(ctx, func(ev ipc.Event) error {
		got = append(got, ev)
		if len(got) == 2 {
			return errDone
		}
		return nil
	})
	if !errors.Is(err, errDone) || got[0].Path != "a.md" || got[1].Error != "empty file" {
		t.Fatalf("events = %+v, %v", got, err)
	}
}

func TestClientGraph(t *testing.T) {
	f := &fakeBackend{}
	c := newClient(t, serve(t, ipc.NewHandler(f, discardLogger())))
	resp, err := c.Graph(context.Background(), ipc.GraphRequest{Query: ipc.GraphBacklinks, Note: "Restic Backups", Vault: "notes", Hops: 2})
	if err != nil || len(resp.Links) != 1 || resp.Links[0].Target != "Restic Backups" {
		t.Fatalf("graph = %+v, %v", resp, err)
	}
	if got := f.graphs[0]; got.Query != "backlinks" || got.Note != "Restic Backups" || got.Vault != "notes" || got.Hops != 2 {
		t.Errorf("request seen = %+v", got)
	}
	var ie *ipc.Error
	if _, err := c.Graph(context.Background(), ipc.GraphRequest{Query: "nope"}); !errors.As(err, &ie) || ie.Status != 404 {
		t.Errorf("unknown query: %v", err)
	}
}
