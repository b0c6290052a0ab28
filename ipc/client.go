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
)

// Client talks to a ragd daemon over its Unix socket.
type Client struct {
	Socket string
	hc     *http.Client
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
	var resp SearchResponse
	return &resp, c.do(ctx, http.MethodPost, "/v1/search", req, &resp)
}

// Status returns the daemon's state and per-vault counts.
func (c *Client) Status(ctx context.Context) (*StatusResponse, error) {
	var resp StatusResponse
	return &resp, c.do(ctx, http.MethodGet, "/v1/status", nil, &resp)
}

// Reindex asks for a reconcile of one vault, one path or everything.
func (c *Client) Reindex(ctx context.Context, req ReindexRequest) (*ReindexResponse, error) {
	var resp ReindexResponse
	return &resp, c.do(ctx, http.MethodPost, "/v1/reindex", req, &resp)
}

// Runs lists recent ingestion runs, newest first.
func (c *Client) Runs(ctx context.Context, limit int) (*RunsResponse, error) {
	var resp RunsResponse
	return &resp, c.do(ctx, http.MethodGet, "/v1/runs?limit="+strconv.Itoa(limit), nil, &resp)
}

// Events streams indexing events to fn until ctx ends, fn returns an
// error, or the daemon closes the stream.
func (c *Client) Events(ctx context.Context, fn func(Event) error) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://ragd/v1/events", nil)
	if err != nil {
		return err
	}
	req.Header.Set(HeaderProtocol, strconv.Itoa(ProtocolVersion))
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.transportError("/v1/events", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return errorFrom(resp)
	}
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
	var resp GraphResponse
	return &resp, c.do(ctx, http.MethodGet, "/v1/graph/"+url.PathEscape(req.Query)+"?"+v.Encode(), nil, &resp)
}

// Close releases idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, "http://ragd"+path, body)
	if err != nil {
		return err
	}
	req.Header.Set(HeaderProtocol, strconv.Itoa(ProtocolVersion))
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return c.transportError(path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return errorFrom(resp)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("ragd %s: decode response: %w", path, err)
	}
	return nil
}

func (c *Client) transportError(path string, err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return &NotRunningError{Socket: c.Socket, Err: err}
	}
	return fmt.Errorf("ragd %s: %w", path, err)
}

// errorFrom turns a non-2xx response into an *Error.
func errorFrom(resp *http.Response) error {
	var e ErrorResponse
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if json.Unmarshal(b, &e) != nil || e.Error == "" {
		e.Error = fmt.Sprintf("%s: %s", resp.Status, bytes.TrimSpace(b))
	}
	return &Error{Status: resp.StatusCode, Message: e.Error}
}

// Context asks for a prompt-ready context block.
func (c *Client) Context(ctx context.Context, req ContextRequest) (*ContextResponse, error) {
	var resp ContextResponse
	return &resp, c.do(ctx, "POST", "/v1/context", req, &resp)
}

// Similar lists notes related to a note.
func (c *Client) Similar(ctx context.Context, req SimilarRequest) (*SimilarResponse, error) {
	var resp SimilarResponse
	return &resp, c.do(ctx, "POST", "/v1/similar", req, &resp)
}

// Plugins lists the configured plugins with their state.
func (c *Client) Plugins(ctx context.Context) (*PluginsResponse, error) {
	var resp PluginsResponse
	return &resp, c.do(ctx, "GET", "/v1/plugins", nil, &resp)
}
