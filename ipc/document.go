package ipc

import (
	"context"
	"net/http"
	"strings"
)

// DocumentRequest is the body of POST /v1/document: the indexed text of a
// file, or a range of its lines, numbered as citations number them.
type DocumentRequest struct {
	Vault string `json:"vault,omitempty"` // needed when several vaults hold Path
	// Path is vault-relative or absolute inside a vault; a note's title,
	// file name or alias is accepted too.
	Path string `json:"path"`
	// LineStart and LineEnd are the 1-based, inclusive lines wanted (0:
	// the first line, the last line).
	LineStart int `json:"line_start,omitempty"`
	LineEnd   int `json:"line_end,omitempty"`
}

// DocumentResponse is the answer to /v1/document. For a file indexed as
// it is on disk (Markdown, text) Text is lines of the file; for a PDF,
// DOCX, HTML or plugin-extracted file it is lines of the extracted text the
// index was built from, so the lines of its citations are found here.
type DocumentResponse struct {
	Vault   string `json:"vault"`
	Path    string `json:"path"`
	AbsPath string `json:"abs_path"`
	Title   string `json:"title"`
	Kind    string `json:"kind"` // markdown, text, pdf, docx, html, …
	// Extracted says Text is an extractor's text, not the file's bytes.
	Extracted bool   `json:"extracted,omitempty"`
	Text      string `json:"text"`
	LineStart int    `json:"line_start"`
	LineEnd   int    `json:"line_end"` // 0 for an empty document
	Lines     int    `json:"lines"`    // lines in the whole text
	// Pages is the page map of a PDF's text: page i+1 begins at line
	// Pages[i].
	Pages []int `json:"pages,omitempty"`
	// Truncated is set when the range goes on past the limits (2000 lines,
	// 1 MiB); NextLine continues it.
	Truncated bool `json:"truncated,omitempty"`
	NextLine  int  `json:"next_line,omitempty"`
	// Stale is set when the file changed since it was indexed.
	Stale bool `json:"stale,omitempty"`
}

func (h *handler) document(w http.ResponseWriter, r *http.Request) {
	var req DocumentRequest
	if err := decodeJSON(r.Body, &req); err != nil {
		h.fail(w, r, err)
		return
	}
	req.Path = strings.TrimSpace(req.Path)
	switch {
	case req.Path == "":
		h.fail(w, r, BadRequest("path is empty"))
		return
	case req.LineStart < 0 || req.LineEnd < 0:
		h.fail(w, r, BadRequest("line numbers start at 1"))
		return
	case req.LineEnd != 0 && req.LineEnd < max(req.LineStart, 1):
		h.fail(w, r, BadRequest("line_end %d is before line_start %d", req.LineEnd, req.LineStart))
		return
	}
	db, ok := backendFor[DocumentReader](h, w, r)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.timeout)
	defer cancel()
	resp, err := db.Document(ctx, req)
	h.reply(w, r, resp, err)
}

// Document returns the indexed text of a file, or lines of it.
func (c *Client) Document(ctx context.Context, req DocumentRequest) (*DocumentResponse, error) {
	return send[DocumentResponse](ctx, c, http.MethodPost, "/v1/document", req)
}
