package ipc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DefaultRequestTimeout bounds every request except a reindex that waits
// and the event stream; past it the request fails with 504 (ErrTimeout).
const DefaultRequestTimeout = 30 * time.Second

// HandlerOption configures NewHandler.
type HandlerOption func(*handler)

// WithRequestTimeout bounds requests by d instead of DefaultRequestTimeout.
func WithRequestTimeout(d time.Duration) HandlerOption {
	return func(h *handler) { h.timeout = d }
}

// NewHandler returns the HTTP handler of the local API served by b. Each
// endpoint uses the interface it needs of b (Searcher, StatusReporter, …);
// an endpoint whose interface b does not implement answers 404. The daemon
// implements them all (Backend); a test serves what it exercises.
func NewHandler(b any, log *slog.Logger, opts ...HandlerOption) http.Handler {
	h := &handler{b: b, log: log, timeout: DefaultRequestTimeout}
	for _, o := range opts {
		o(h)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/search", h.search)
	mux.HandleFunc("GET /v1/status", h.status)
	mux.HandleFunc("POST /v1/reindex", h.reindex)
	mux.HandleFunc("GET /v1/runs", h.runs)
	mux.HandleFunc("GET /v1/events", h.events)
	mux.HandleFunc("GET /v1/graph/{query}", h.graph)
	mux.HandleFunc("POST /v1/context", h.context)
	mux.HandleFunc("POST /v1/similar", h.similar)
	mux.HandleFunc("GET /v1/plugins", h.plugins)
	mux.HandleFunc("POST /v1/document", h.document)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		// A path served under another method is a 405 naming the allowed
		// one, not a 404.
		var allow []string
		for _, m := range []string{http.MethodGet, http.MethodPost} {
			probe := r.Clone(r.Context())
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "/" && pattern != "" {
				allow = append(allow, m)
			}
		}
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			h.fail(w, r, Errorf(http.StatusMethodNotAllowed, "%s %s: method not allowed (use %s)",
				r.Method, r.URL.Path, strings.Join(allow, " or ")))
			return
		}
		h.fail(w, r, NotFound("no such endpoint: %s %s", r.Method, r.URL.Path))
	})
	return cleanPath(h.wrap(mux))
}

type handler struct {
	b       any
	log     *slog.Logger
	timeout time.Duration
}

// wrap sets the protocol header, limits bodies and refuses clients that
// speak a newer protocol than this daemon.
func (h *handler) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(HeaderProtocol, strconv.Itoa(ProtocolVersion))
		if v := r.Header.Get(HeaderProtocol); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n > ProtocolVersion {
				h.fail(w, r, Errorf(http.StatusUpgradeRequired,
					"client speaks protocol %q, this ragd speaks %d: upgrade ragd", v, ProtocolVersion))
				return
			}
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxRequestBytes)
		next.ServeHTTP(w, r)
	})
}

func (h *handler) search(w http.ResponseWriter, r *http.Request) {
	req, err := DecodeSearchRequest(r.Body)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	b, ok := backendFor[Searcher](h, w, r)
	if !ok {
		return
	}
	resp, err := b.Search(ctx, req)
	h.reply(w, r, resp, err)
}

func (h *handler) status(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	b, ok := backendFor[StatusReporter](h, w, r)
	if !ok {
		return
	}
	resp, err := b.Status(ctx)
	h.reply(w, r, resp, err)
}

func (h *handler) reindex(w http.ResponseWriter, r *http.Request) {
	var req ReindexRequest
	if err := decodeJSON(r.Body, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	b, ok := backendFor[Reindexer](h, w, r)
	if !ok {
		return
	}
	resp, err := b.Reindex(r.Context(), req)
	h.reply(w, r, resp, err)
}

func (h *handler) runs(w http.ResponseWriter, r *http.Request) {
	limit := 20
	if s := r.URL.Query().Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 1000 {
			h.fail(w, r, BadRequest("limit must be a number from 1 to 1000, got %q", s))
			return
		}
		limit = n
	}
	b, ok := backendFor[RunLister](h, w, r)
	if !ok {
		return
	}
	resp, err := b.Runs(r.Context(), limit)
	h.reply(w, r, resp, err)
}

func (h *handler) graph(w http.ResponseWriter, r *http.Request) {
	req, err := DecodeGraphRequest(r.PathValue("query"), r.URL.Query())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	b, ok := backendFor[GraphQuerier](h, w, r)
	if !ok {
		return
	}
	resp, err := b.Graph(ctx, req)
	h.reply(w, r, resp, err)
}

func (h *handler) plugins(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	b, ok := backendFor[PluginLister](h, w, r)
	if !ok {
		return
	}
	resp, err := b.Plugins(ctx)
	h.reply(w, r, resp, err)
}

// events streams indexing events as NDJSON until the client goes away.
func (h *handler) events(w http.ResponseWriter, r *http.Request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		h.fail(w, r, Errorf(http.StatusInternalServerError, "streaming unsupported"))
		return
	}
	b, ok := backendFor[EventSource](h, w, r)
	if !ok {
		return
	}
	ch, stop := b.Subscribe()
	defer stop()
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	fl.Flush()
	enc := json.NewEncoder(w)
	for {
		select {
		case <-r.Context().Done():
			return
		case ev, ok := <-ch:
			if !ok {
				return
			}
			if err := enc.Encode(ev); err != nil {
				return
			}
			fl.Flush()
		}
	}
}

func (h *handler) reply(w http.ResponseWriter, r *http.Request, v any, err error) {
	if err != nil {
		h.fail(w, r, err)
		return
	}
	// Encode first so the answer goes out with a Content-Length in one
	// write, not as chunks. A search answer has an encoder of its own
	// (appendSearch) that writes what json.Marshal would.
	var b []byte
	ok := false
	if sr, is := v.(*SearchResponse); is {
		b, ok = appendSearch(make([]byte, 0, 16<<10), sr)
	}
	if !ok {
		if b, err = json.Marshal(v); err != nil {
			h.fail(w, r, fmt.Errorf("encode response: %w", err))
			return
		}
	}
	b = append(b, '\n')
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	if _, err := w.Write(b); err != nil {
		h.log.Debug("write response", "path", r.URL.Path, "err", err)
	}
}

func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	code := statusOf(err)
	msg := err.Error()
	switch {
	case code == http.StatusServiceUnavailable || code == http.StatusGatewayTimeout:
		h.log.Warn("request not served", "path", r.URL.Path, "status", code, "err", err)
	case code >= 500:
		h.log.Error("request failed", "path", r.URL.Path, "err", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(ErrorResponse{Error: msg})
}

// DecodeSearchRequest reads and validates a search request body.
func DecodeSearchRequest(body io.Reader) (SearchRequest, error) {
	var req SearchRequest
	if err := decodeJSON(body, &req); err != nil {
		return req, err
	}
	req.Query = strings.TrimSpace(req.Query)
	if err := checkQuery(req.Query, req.K); err != nil {
		return req, err
	}
	switch {
	case !ValidMode(req.Mode):
		return req, BadRequest("mode must be hybrid, lexical or vector, got %q", req.Mode)
	case !ValidFusion(req.Fusion):
		return req, BadRequest("fusion must be %s, got %q", strings.Join(Fusions, " or "), req.Fusion)
	case req.Passages < 0 || req.Passages > MaxPassages:
		return req, BadRequest("passages must be between 1 and %d, got %d", MaxPassages, req.Passages)
	case req.SnippetWidth < 0 || req.SnippetWidth > MaxSnippetWidth:
		return req, BadRequest("snippet_width must be between 1 and %d, got %d", MaxSnippetWidth, req.SnippetWidth)
	}
	if err := canonicalChannels(&req); err != nil {
		return req, err
	}
	if req.K == 0 {
		req.K = DefaultK
	}
	return req, nil
}

// decodeJSON decodes exactly one JSON object, rejecting unknown fields,
// trailing data and bodies that are not valid UTF-8 (encoding/json would
// otherwise silently replace invalid bytes with U+FFFD). An empty body
// decodes as the zero value.
func decodeJSON(body io.Reader, v any) error {
	b, err := io.ReadAll(body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return Errorf(http.StatusRequestEntityTooLarge, "request body over %d bytes", tooBig.Limit)
		}
		return BadRequest("invalid request body: %w", err)
	}
	if !utf8.Valid(b) {
		return BadRequest("invalid request body: not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return BadRequest("invalid request body: %w", err)
	}
	if dec.More() {
		return BadRequest("invalid request body: trailing data after the JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return BadRequest("invalid request body: trailing data after the JSON object")
	}
	return nil
}
