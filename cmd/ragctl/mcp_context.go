package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd/ipc"
)

type contextInput struct {
	Query  string `json:"query" jsonschema:"what the user is asking about, in their words"`
	K      int    `json:"k,omitempty" jsonschema:"passages to retrieve before merging (default 8)"`
	Budget int    `json:"budget,omitempty" jsonschema:"most characters of quoted note text (default 6000)"`
	Vault  string `json:"vault,omitempty" jsonschema:"search only this vault"`
}

type contextOutput struct {
	Grounded    bool              `json:"grounded" jsonschema:"false when nothing in the vaults answers the query: then do not cite anything"`
	Context     string            `json:"context" jsonschema:"the <retrieved-context> block: numbered passages, each headed by its citation path:Lstart-Lend"`
	Citations   []contextCitation `json:"citations"`
	Suggestions []string          `json:"suggestions,omitempty"`
	Degraded    []string          `json:"degraded,omitempty" jsonschema:"retrieval channels that could not answer"`
}

type contextCitation struct {
	N        int    `json:"n" jsonschema:"the passage number [n] in the block"`
	Citation string `json:"citation"`
	Vault    string `json:"vault"`
	Path     string `json:"path"`
	Heading  string `json:"heading,omitempty"`
	Stale    bool   `json:"stale,omitempty" jsonschema:"the file changed since it was indexed: re-read it with get_document"`
}

func (t *mcpTools) context(ctx context.Context, _ *mcp.CallToolRequest, in contextInput) (*mcp.CallToolResult, contextOutput, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return nil, contextOutput{}, errors.New("query is empty")
	}
	req := ipc.ContextRequest{Query: q, K: in.K, Budget: in.Budget}
	if in.Vault != "" {
		req.Vaults = []string{in.Vault}
	}
	ctx, cancel := context.WithTimeout(ctx, mcpCallTimeout)
	defer cancel()
	resp, err := t.c.Context(ctx, req)
	if err != nil {
		return nil, contextOutput{}, daemonError(err)
	}
	out := contextOutput{Grounded: resp.Grounded, Context: resp.Context, Citations: []contextCitation{},
		Suggestions: resp.Suggestions, Degraded: resp.Degraded}
	for i, c := range resp.Citations {
		out.Citations = append(out.Citations, contextCitation{N: i + 1, Citation: c.Cite, Vault: c.Vault,
			Path: c.Path, Heading: c.Heading, Stale: c.Stale})
	}
	if !resp.Grounded {
		text := fmt.Sprintf("Nothing in the user's notes answers %q (grounded: false).", q)
		for _, s := range resp.Suggestions {
			text += "\n- " + s
		}
		return textResult(text), out, nil
	}
	return textResult(resp.Context), out, nil
}

type similarInput struct {
	Path  string `json:"path" jsonschema:"a note: vault-relative (as in search results) or absolute"`
	Vault string `json:"vault,omitempty" jsonschema:"the vault holding path, when several do"`
	K     int    `json:"k,omitempty" jsonschema:"notes to list (default 10)"`
}

type similarOutput struct {
	Path     string        `json:"path"`
	Notes    []similarNote `json:"notes"`
	Degraded []string      `json:"degraded,omitempty"`
}

type similarNote struct {
	Citation string  `json:"citation" jsonschema:"the passage that relates it best, path:Lstart-Lend"`
	Vault    string  `json:"vault"`
	Path     string  `json:"path"`
	Title    string  `json:"title"`
	Score    float64 `json:"score"`
	Why      string  `json:"why" jsonschema:"vector, links and/or terms, joined by +"`
}

func (t *mcpTools) similar(ctx context.Context, _ *mcp.CallToolRequest, in similarInput) (*mcp.CallToolResult, similarOutput, error) {
	if strings.TrimSpace(in.Path) == "" {
		return nil, similarOutput{}, errors.New("path is empty")
	}
	ctx, cancel := context.WithTimeout(ctx, mcpCallTimeout)
	defer cancel()
	resp, err := t.c.Similar(ctx, ipc.SimilarRequest{Vault: in.Vault, Path: in.Path, K: in.K})
	if err != nil {
		return nil, similarOutput{}, daemonError(err)
	}
	out := similarOutput{Path: resp.Path, Notes: []similarNote{}, Degraded: resp.Degraded}
	var b strings.Builder
	fmt.Fprintf(&b, "Notes related to %s:\n", resp.Path)
	for i, n := range resp.Notes {
		cite := n.Path
		if n.LineStart > 0 {
			cite = citation(n.Path, n.LineStart, n.LineEnd)
		}
		out.Notes = append(out.Notes, similarNote{Citation: cite, Vault: n.Vault, Path: n.Path, Title: n.Title, Score: n.Score, Why: n.Why})
		fmt.Fprintf(&b, "%d. %s — %s (%s)\n", i+1, cite, n.Title, n.Why)
	}
	if len(resp.Notes) == 0 {
		b.WriteString("(none)\n")
	}
	return textResult(b.String()), out, nil
}

// addContextTools registers the context and similar tools.
func addContextTools(s *mcp.Server, t *mcpTools, readOnly *mcp.ToolAnnotations) {
	mcp.AddTool(s, &mcp.Tool{
		Name: "context",
		Description: "Build a prompt-ready block of the user's notes that answer a question: retrieved passages merged " +
			"and numbered [n], each headed by its citation path:Lstart-Lend. grounded is false when nothing relevant " +
			"was found — then say so instead of answering from the notes.",
		InputSchema: inputSchema[contextInput](map[string]func(*jsonschema.Schema){
			"query": func(s *jsonschema.Schema) {
				s.MinLength = jsonschema.Ptr(1)
				s.MaxLength = jsonschema.Ptr(ipc.MaxQueryBytes)
			},
			"k": func(s *jsonschema.Schema) {
				s.Minimum, s.Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(mcpMaxK))
			},
			"budget": func(s *jsonschema.Schema) {
				s.Minimum, s.Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(ipc.MaxContextBudget))
			},
		}),
		Annotations: readOnly,
	}, t.context)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "similar",
		Description: "List notes related to a note (by meaning, links and shared terms), each with the passage that relates it best.",
		InputSchema: inputSchema[similarInput](map[string]func(*jsonschema.Schema){
			"path": func(s *jsonschema.Schema) { s.MinLength = jsonschema.Ptr(1) },
			"k": func(s *jsonschema.Schema) {
				s.Minimum, s.Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(mcpMaxK))
			},
		}),
		Annotations: readOnly,
	}, t.similar)
}
