// Package ipctest is the test kit of the local API: a fake backend made of
// the functions a test needs, the real handler serving it on a real Unix
// socket with a client, and temporary directories short enough for socket
// paths. ragctl's, the daemon's and ipc's own tests use it.
package ipctest

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

// Backend is a fake daemon: each endpoint calls its function, and one
// whose function is nil answers 404 as a daemon without that endpoint
// would. A test sets only what it exercises:
//
//	b := &ipctest.Backend{SearchFunc: func(_ context.Context, req ipc.SearchRequest) (*ipc.SearchResponse, error) {
//		return &ipc.SearchResponse{Query: req.Query, Results: []ipc.Result{}}, nil
//	}}
//	c := ipctest.Serve(t, b).Client
type Backend struct {
	SearchFunc    func(ctx context.Context, req ipc.SearchRequest) (*ipc.SearchResponse, error)
	StatusFunc    func(ctx context.Context) (*ipc.StatusResponse, error)
	ReindexFunc   func(ctx context.Context, req ipc.ReindexRequest) (*ipc.ReindexResponse, error)
	RunsFunc      func(ctx context.Context, limit int) (*ipc.RunsResponse, error)
	SubscribeFunc func() (<-chan ipc.Event, func())
	GraphFunc     func(ctx context.Context, req ipc.GraphRequest) (*ipc.GraphResponse, error)
	ContextFunc   func(ctx context.Context, req ipc.ContextRequest) (*ipc.ContextResponse, error)
	SimilarFunc   func(ctx context.Context, req ipc.SimilarRequest) (*ipc.SimilarResponse, error)
	PluginsFunc   func(ctx context.Context) (*ipc.PluginsResponse, error)
	DocumentFunc  func(ctx context.Context, req ipc.DocumentRequest) (*ipc.DocumentResponse, error)
}

var _ ipc.Backend = (*Backend)(nil)

func unserved(what string) error { return ipc.NotFound("this fake ragd does not serve %s", what) }

// Search implements ipc.Searcher.
func (b *Backend) Search(ctx context.Context, req ipc.SearchRequest) (*ipc.SearchResponse, error) {
	if b.SearchFunc == nil {
		return nil, unserved("search")
	}
	return b.SearchFunc(ctx, req)
}

// Status implements ipc.StatusReporter.
func (b *Backend) Status(ctx context.Context) (*ipc.StatusResponse, error) {
	if b.StatusFunc == nil {
		return nil, unserved("status")
	}
	return b.StatusFunc(ctx)
}

// Reindex implements ipc.Reindexer.
func (b *Backend) Reindex(ctx context.Context, req ipc.ReindexRequest) (*ipc.ReindexResponse, error) {
	if b.ReindexFunc == nil {
		return nil, unserved("reindex")
	}
	return b.ReindexFunc(ctx, req)
}

// Runs implements ipc.RunLister.
func (b *Backend) Runs(ctx context.Context, limit int) (*ipc.RunsResponse, error) {
	if b.RunsFunc == nil {
		return nil, unserved("runs")
	}
	return b.RunsFunc(ctx, limit)
}

// Subscribe implements ipc.EventSource; without SubscribeFunc the stream
// ends at once.
func (b *Backend) Subscribe() (<-chan ipc.Event, func()) {
	if b.SubscribeFunc == nil {
		ch := make(chan ipc.Event)
		close(ch)
		return ch, func() {}
	}
	return b.SubscribeFunc()
}

// Graph implements ipc.GraphQuerier.
func (b *Backend) Graph(ctx context.Context, req ipc.GraphRequest) (*ipc.GraphResponse, error) {
	if b.GraphFunc == nil {
		return nil, unserved("graph queries")
	}
	return b.GraphFunc(ctx, req)
}

// Context implements ipc.ContextBuilder.
func (b *Backend) Context(ctx context.Context, req ipc.ContextRequest) (*ipc.ContextResponse, error) {
	if b.ContextFunc == nil {
		return nil, unserved("context")
	}
	return b.ContextFunc(ctx, req)
}

// Similar implements ipc.SimilarFinder.
func (b *Backend) Similar(ctx context.Context, req ipc.SimilarRequest) (*ipc.SimilarResponse, error) {
	if b.SimilarFunc == nil {
		return nil, unserved("similar")
	}
	return b.SimilarFunc(ctx, req)
}

// Plugins implements ipc.PluginLister.
func (b *Backend) Plugins(ctx context.Context) (*ipc.PluginsResponse, error) {
	if b.PluginsFunc == nil {
		return nil, unserved("plugins")
	}
	return b.PluginsFunc(ctx)
}

// Document implements ipc.DocumentReader.
func (b *Backend) Document(ctx context.Context, req ipc.DocumentRequest) (*ipc.DocumentResponse, error) {
	if b.DocumentFunc == nil {
		return nil, unserved("documents")
	}
	return b.DocumentFunc(ctx, req)
}

// ShortDir returns a new temporary directory, removed when the test ends,
// whose path is short enough to hold a Unix socket (104 bytes on macOS,
// 108 on Linux): t.TempDir's paths, which hold the test's name, may not be.
func ShortDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ragd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Server is a backend served by the real handler on a Unix socket.
type Server struct {
	Socket string
	Client *ipc.Client // a client of Socket, closed when the test ends
}

// Serve serves b — anything implementing some of the endpoints'
// interfaces, an *ipctest.Backend or a real daemon — with ipc.NewHandler
// on a socket listened on with ipc.Listen in a ShortDir. Everything is
// stopped, and the server's goroutine waited for, when the test ends.
func Serve(t testing.TB, b any, opts ...ipc.HandlerOption) *Server {
	t.Helper()
	return ServeHTTP(t, ipc.NewHandler(b, slog.New(slog.DiscardHandler), opts...))
}

// ServeHTTP serves any handler the way Serve does: for a test that wraps
// the API's handler, or stands in for a daemon that answers otherwise.
func ServeHTTP(t testing.TB, h http.Handler) *Server {
	t.Helper()
	sock := filepath.Join(ShortDir(t), "ragd.sock")
	ln, err := ipc.Listen(sock, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	s := &Server{Socket: sock, Client: ipc.NewClient(sock)}
	t.Cleanup(func() {
		s.Client.Close()
		srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("ipctest: Serve: %v", err)
		}
	})
	return s
}
