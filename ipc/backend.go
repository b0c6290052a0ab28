package ipc

import (
	"context"
	"net/http"
)

// The backends of the endpoints, one small interface each: a handler asks
// for the methods it calls and nothing else, so a test serves an endpoint
// with a fake of one or two methods (ipctest.Backend). The daemon
// implements them all (Backend).
type (
	// Searcher serves POST /v1/search.
	Searcher interface {
		Search(ctx context.Context, req SearchRequest) (*SearchResponse, error)
	}
	// StatusReporter serves GET /v1/status.
	StatusReporter interface {
		Status(ctx context.Context) (*StatusResponse, error)
	}
	// Reindexer serves POST /v1/reindex.
	Reindexer interface {
		Reindex(ctx context.Context, req ReindexRequest) (*ReindexResponse, error)
	}
	// RunLister serves GET /v1/runs.
	RunLister interface {
		Runs(ctx context.Context, limit int) (*RunsResponse, error)
	}
	// EventSource serves GET /v1/events: Subscribe returns a stream of
	// events and a function that ends it.
	EventSource interface {
		Subscribe() (<-chan Event, func())
	}
	// GraphQuerier serves GET /v1/graph/{query}.
	GraphQuerier interface {
		Graph(ctx context.Context, req GraphRequest) (*GraphResponse, error)
	}
	// ContextBuilder serves POST /v1/context.
	ContextBuilder interface {
		Context(ctx context.Context, req ContextRequest) (*ContextResponse, error)
	}
	// SimilarFinder serves POST /v1/similar.
	SimilarFinder interface {
		Similar(ctx context.Context, req SimilarRequest) (*SimilarResponse, error)
	}
	// PluginLister serves GET /v1/plugins.
	PluginLister interface {
		Plugins(ctx context.Context) (*PluginsResponse, error)
	}
	// DocumentReader serves POST /v1/document.
	DocumentReader interface {
		Document(ctx context.Context, req DocumentRequest) (*DocumentResponse, error)
	}
)

// Backend is every endpoint's backend: what the daemon implements.
type Backend interface {
	Searcher
	StatusReporter
	Reindexer
	RunLister
	EventSource
	GraphQuerier
	ContextBuilder
	SimilarFinder
	PluginLister
	DocumentReader
}

// backendFor returns the part of the handler's backend an endpoint needs,
// or answers 404 when the backend does not serve that endpoint.
func backendFor[T any](h *handler, w http.ResponseWriter, r *http.Request) (T, bool) {
	b, ok := h.b.(T)
	if !ok {
		h.fail(w, r, NotFound("this ragd does not serve %s %s", r.Method, r.URL.Path))
	}
	return b, ok
}
