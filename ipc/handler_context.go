package ipc

import (
	"context"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Context budget limits.
const (
	DefaultContextBudget = 6000
	MaxContextBudget     = 200_000
)

func (h *handler) context(w http.ResponseWriter, r *http.Request) {
	req, err := DecodeContextRequest(r.Body)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	b, ok := backendFor[ContextBuilder](h, w, r)
	if !ok {
		return
	}
	resp, err := b.Context(ctx, req)
	h.reply(w, r, resp, err)
}

func (h *handler) similar(w http.ResponseWriter, r *http.Request) {
	var req SimilarRequest
	if err := decodeJSON(r.Body, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	req.Path = strings.TrimSpace(req.Path)
	switch {
	case req.Path == "":
		h.fail(w, r, BadRequest("path is empty"))
		return
	case req.K < 0 || req.K > MaxK:
		h.fail(w, r, BadRequest("k must be between 1 and %d, got %d", MaxK, req.K))
		return
	}
	if req.K == 0 {
		req.K = DefaultK
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	b, ok := backendFor[SimilarFinder](h, w, r)
	if !ok {
		return
	}
	resp, err := b.Similar(ctx, req)
	h.reply(w, r, resp, err)
}

// DecodeContextRequest reads and checks a /v1/context body.
func DecodeContextRequest(body io.Reader) (ContextRequest, error) {
	var req ContextRequest
	if err := decodeJSON(body, &req); err != nil {
		return req, err
	}
	req.Query = strings.TrimSpace(req.Query)
	if err := checkQuery(req.Query, req.K); err != nil {
		return req, err
	}
	switch {
	case req.Budget < 0 || req.Budget > MaxContextBudget:
		return req, BadRequest("budget must be between 1 and %d characters, got %d", MaxContextBudget, req.Budget)
	case req.Style != "" && req.Style != "snippets" && req.Style != "summary":
		return req, BadRequest("style must be \"snippets\" or \"summary\", got %q", req.Style)
	case !ValidMode(req.Mode):
		return req, BadRequest("mode must be hybrid, lexical or vector, got %q", req.Mode)
	}
	if req.K == 0 {
		req.K = 8
	}
	if req.Budget == 0 {
		req.Budget = DefaultContextBudget
	}
	if req.Style == "" {
		req.Style = "snippets"
	}
	return req, nil
}

// checkQuery validates the query text and k of a search or context
// request.
func checkQuery(q string, k int) error {
	switch {
	case q == "":
		return BadRequest("query is empty")
	case len(q) > MaxQueryBytes:
		return BadRequest("query is %d bytes, over the limit of %d", len(q), MaxQueryBytes)
	case !utf8.ValidString(q):
		return BadRequest("query is not valid UTF-8")
	case k < 0 || k > MaxK:
		return BadRequest("k must be between 1 and %d, got %d", MaxK, k)
	}
	return nil
}
