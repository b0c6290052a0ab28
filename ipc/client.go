package ipc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
)

// Client talks to a ragd daemon over its Unix socket. Its methods return
// the decoded answer, or nil and an error whose kind errors.Is tells
// (ErrInvalid, ErrNotFound, ErrUnavailable, ErrTimeout, ErrInternal,
// ErrVersion; see send).
type Client struct {
	Socket string
	// OnNewerServer, when set, is called once if the daemon speaks a newer
	// protocol than this client (which keeps working: the daemon answers
	// older clients), so a program can suggest upgrading it.
	OnNewerServer func(server int)

	hc        *http.Client
	server    atomic.Int32 // the daemon's protocol version, as last seen
	newerOnce sync.Once
}

// NewClient returns a client for the daemon listening on socket. Before
// each connection it checks the socket (CheckSocket) and, on Linux, the
// credentials of the process listening on it: a socket another user could
// control yields an *UnsafeSocketError and nothing is sent.
func NewClient(socket string) *Client {
	uid := os.Getuid()
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialSafe(ctx, socket, uid)
		},
		MaxIdleConnsPerHost: 4,
	}
	return &Client{Socket: socket, hc: &http.Client{Transport: tr}}
}

// Search runs a query.
func (c *Client) Search(ctx context.Context, req SearchRequest) (*SearchResponse, error) {
	return send[SearchResponse](ctx, c, http.MethodPost, "/v1/search", req)
}

// Status returns the daemon's state and per-vault counts.
func (c *Client) Status(ctx context.Context) (*StatusResponse, error) {
	return send[StatusResponse](ctx, c, http.MethodGet, "/v1/status", nil)
}

// Reindex asks for a reconcile of one vault, one path or everything.
func (c *Client) Reindex(ctx context.Context, req ReindexRequest) (*ReindexResponse, error) {
	return send[ReindexResponse](ctx, c, http.MethodPost, "/v1/reindex", req)
}

// Runs lists recent ingestion runs, newest first.
func (c *Client) Runs(ctx context.Context, limit int) (*RunsResponse, error) {
	return send[RunsResponse](ctx, c, http.MethodGet, "/v1/runs?limit="+strconv.Itoa(limit), nil)
}

// Events streams indexing events to fn until ctx ends, fn returns an
// error, or the daemon closes the stream.
func (c *Client) Events(ctx context.Context, fn func(Event) error) error {
	resp, err := c.roundTrip(ctx, http.MethodGet, "/v1/events", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var ev Event
		if err := dec.Decode(&ev); err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) {
				return ctx.Err()
			}
			return fmt.Errorf("ragd /v1/events: %w", err)
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
}

// Graph runs a graph query.
func (c *Client) Graph(ctx context.Context, req GraphRequest) (*GraphResponse, error) {
	v := url.Values{}
	for k, s := range map[string]string{"vault": req.Vault, "note": req.Note, "entity": req.Entity, "type": req.Type} {
		if s != "" {
			v.Set(k, s)
		}
	}
	if req.Hops > 0 {
		v.Set("hops", strconv.Itoa(req.Hops))
	}
	if req.Limit > 0 {
		v.Set("limit", strconv.Itoa(req.Limit))
	}
	return send[GraphResponse](ctx, c, http.MethodGet, "/v1/graph/"+url.PathEscape(req.Query)+"?"+v.Encode(), nil)
}

// Close releases idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// send makes one request and decodes a 2xx answer into a new T. Any other
// answer is an error and the result is nil (see roundTrip).
func send[T any](ctx context.Context, c *Client, method, path string, in any) (*T, error) {
	resp, err := c.roundTrip(ctx, method, path, in)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := readBody(resp)
	if err != nil {
		return nil, fmt.Errorf("ragd %s: read response: %w", path, err)
	}
	out := new(T)
	if sr, ok := any(out).(*SearchResponse); ok {
		if decodeSearch(b, sr) {
			return out, nil
		}
		*sr = SearchResponse{} // what decodeSearch does not handle
	}
	if err := json.Unmarshal(b, out); err != nil {
		return nil, fmt.Errorf("ragd %s: decode response: %w", path, err)
	}
	return out, nil
}

// readBody reads a whole answer: into a buffer of its Content-Length when
// it has one (the daemon's answers do), so that decoding neither grows a
// buffer nor leaves the end unread (a body read to its end lets the
// connection be used again).
func readBody(resp *http.Response) ([]byte, error) {
	if n := resp.ContentLength; n > 0 && n <= maxResponseBytes {
		b := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	return io.ReadAll(resp.Body)
}

// maxResponseBytes bounds the buffer made ahead of reading an answer from
// its Content-Length; a longer answer is read as it comes.
const maxResponseBytes = 64 << 20

// roundTrip sends one request with in as its JSON body (none when nil)
// and returns the 2xx response, whose body the caller closes. Any other
// answer is an error: an *Error (errors.Is finds its kind), a
// *VersionError for a daemon older than this client, or a
// *NotRunningError when nothing answers on the socket.
func (c *Client) roundTrip(ctx context.Context, method, path string, in any) (*http.Response, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("ragd %s: encode request: %w", path, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://ragd"+path, body)
	if err != nil {
		return nil, fmt.Errorf("ragd %s: %w", path, err)
	}
	req.Header.Set(HeaderProtocol, strconv.Itoa(ProtocolVersion))
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.transportError(path, err)
	}
	c.sawProtocol(resp)
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, c.errorFrom(resp)
	}
	return resp, nil
}

// ServerProtocol reports the protocol version the daemon announced in its
// last answer, 0 before the first.
func (c *Client) ServerProtocol() int { return int(c.server.Load()) }

// sawProtocol records the daemon's protocol version and, the first time it
// is newer than the client's, calls OnNewerServer.
func (c *Client) sawProtocol(resp *http.Response) {
	n, err := strconv.Atoi(resp.Header.Get(HeaderProtocol))
	if err != nil || n <= 0 {
		return
	}
	c.server.Store(int32(n))
	if n > ProtocolVersion && c.OnNewerServer != nil {
		c.newerOnce.Do(func() { c.OnNewerServer(n) })
	}
}

func (c *Client) transportError(path string, err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return &NotRunningError{Socket: c.Socket, Err: err}
	}
	return fmt.Errorf("ragd %s: %w", path, err)
}

// errorFrom turns a non-2xx response into an *Error, or a *VersionError
// when the daemon refused this client's protocol.
func (c *Client) errorFrom(resp *http.Response) error {
	var e ErrorResponse
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if json.Unmarshal(b, &e) != nil || e.Error == "" {
		e.Error = fmt.Sprintf("%s: %s", resp.Status, bytes.TrimSpace(b))
	}
	err := &Error{Status: resp.StatusCode, Message: e.Error}
	if resp.StatusCode == http.StatusUpgradeRequired {
		return &VersionError{Client: ProtocolVersion, Server: c.ServerProtocol(), Err: err}
	}
	return err
}

// Context asks for a prompt-ready context block.
func (c *Client) Context(ctx context.Context, req ContextRequest) (*ContextResponse, error) {
	return send[ContextResponse](ctx, c, "POST", "/v1/context", req)
}

// Similar lists notes related to a note.
func (c *Client) Similar(ctx context.Context, req SimilarRequest) (*SimilarResponse, error) {
	return send[SimilarResponse](ctx, c, "POST", "/v1/similar", req)
}

// Plugins lists the configured plugins with their state.
func (c *Client) Plugins(ctx context.Context) (*PluginsResponse, error) {
	return send[PluginsResponse](ctx, c, "GET", "/v1/plugins", nil)
}
