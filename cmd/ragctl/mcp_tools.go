package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query/doctext"
)

// graphLimit is the most links a graph tool lists.
const graphLimit = 200

type documentInput struct {
	Path      string `json:"path" jsonschema:"the file: vault-relative (as in search results) or absolute, inside a configured vault; or a note's title, file name or alias"`
	Vault     string `json:"vault,omitempty" jsonschema:"the vault the path is in; needed only when a relative path exists in several vaults"`
	LineStart int    `json:"line_start,omitempty" jsonschema:"first line to return, 1-based (default 1)"`
	LineEnd   int    `json:"line_end,omitempty" jsonschema:"last line to return, inclusive (default: the end of the file)"`
}

type documentOutput struct {
	Citation  string `json:"citation" jsonschema:"path:Lstart-Lend of the returned text"`
	Vault     string `json:"vault"`
	Path      string `json:"path" jsonschema:"file path relative to the vault root"`
	Kind      string `json:"kind,omitempty" jsonschema:"markdown, text, pdf, docx, html, …"`
	Extracted bool   `json:"extracted,omitempty" jsonschema:"the text was extracted from the file (PDF, DOCX, HTML): its lines are the ones citations name"`
	LineStart int    `json:"line_start" jsonschema:"first line returned, 1-based"`
	LineEnd   int    `json:"line_end" jsonschema:"last line returned (0 for an empty file)"`
	Lines     int    `json:"lines,omitempty" jsonschema:"lines in the whole document"`
	Pages     []int  `json:"pages,omitempty" jsonschema:"for a PDF: page i+1 begins at line pages[i]"`
	Truncated bool   `json:"truncated" jsonschema:"true when the requested lines go on past the 2000-line or 1 MiB limit"`
	NextLine  int    `json:"next_line,omitempty" jsonschema:"when truncated: the line_start that continues the reading"`
	Stale     bool   `json:"stale,omitempty" jsonschema:"the file changed since it was indexed: citations may not match these lines"`
	Text      string `json:"text"`
}

func (t *mcpTools) getDocument(ctx context.Context, _ *mcp.CallToolRequest, in documentInput) (*mcp.CallToolResult, documentOutput, error) {
	switch {
	case strings.TrimSpace(in.Path) == "":
		return nil, documentOutput{}, errors.New("path is empty")
	case in.LineStart < 0 || in.LineEnd < 0:
		return nil, documentOutput{}, errors.New("line numbers start at 1")
	case in.LineEnd != 0 && in.LineEnd < max(in.LineStart, 1):
		return nil, documentOutput{}, fmt.Errorf("line_end %d is before line_start %d", in.LineEnd, in.LineStart)
	}
	ctx, cancel := context.WithTimeout(ctx, mcpCallTimeout)
	defer cancel()
	d, err := t.c.Document(ctx, ipc.DocumentRequest{Vault: in.Vault, Path: in.Path, LineStart: in.LineStart, LineEnd: in.LineEnd})
	if err != nil {
		return nil, documentOutput{}, daemonError(err)
	}
	out := documentOutput{Vault: d.Vault, Path: d.Path, Kind: d.Kind, Extracted: d.Extracted, LineStart: d.LineStart,
		LineEnd: d.LineEnd, Lines: d.Lines, Pages: d.Pages, Truncated: d.Truncated, NextLine: d.NextLine, Stale: d.Stale, Text: d.Text}
	out.Citation = citation(d.Path, d.LineStart, d.LineEnd)
	if d.LineEnd == 0 {
		out.Citation = d.Path // an empty file
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (vault %s", out.Citation, out.Vault)
	if d.Extracted {
		fmt.Fprintf(&b, "; text extracted from the %s", strings.ToUpper(d.Kind))
		if p := doctext.PageOf(d.Pages, d.LineStart); p > 0 {
			fmt.Fprintf(&b, ", page %d", p)
		}
	}
	b.WriteString(")\n\n")
	b.WriteString(pagedText(d))
	if d.Stale {
		b.WriteString("\n[the file changed since it was indexed: search again for current citations]")
	}
	if d.Truncated {
		if !strings.HasSuffix(d.Text, "\n") {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "\n[truncated at 2000 lines or 1 MiB: the file goes on; call get_document with line_start=%d to read more]", d.NextLine)
	}
	return textResult(b.String()), out, nil
}

// pagedText is the document's text with a "[page N]" line before each line
// where a PDF page begins (after the first line returned).
func pagedText(d *ipc.DocumentResponse) string {
	if len(d.Pages) == 0 {
		return d.Text
	}
	starts := map[int]int{}
	for i, l := range d.Pages {
		starts[l] = i + 1
	}
	var b strings.Builder
	line := d.LineStart
	for _, l := range strings.SplitAfter(d.Text, "\n") {
		if p, ok := starts[line]; ok && line > d.LineStart && l != "" {
			fmt.Fprintf(&b, "[page %d]\n", p)
		}
		b.WriteString(l)
		line++
	}
	return b.String()
}

type backlinksInput struct {
	Note  string `json:"note" jsonschema:"the note linked to: vault-relative path, file name, title or alias"`
	Vault string `json:"vault,omitempty" jsonschema:"only this vault"`
}

type unresolvedInput struct {
	Vault string `json:"vault,omitempty" jsonschema:"only this vault"`
}

type graphOutput struct {
	Total int         `json:"total" jsonschema:"links found; more than listed when over the limit of 200"`
	Links []graphLink `json:"links"`
}

type graphLink struct {
	Citation    string   `json:"citation" jsonschema:"source:Lline, where the link is"`
	Vault       string   `json:"vault"`
	Source      string   `json:"source" jsonschema:"vault-relative path of the note holding the link"`
	SourceTitle string   `json:"source_title,omitempty"`
	Line        int      `json:"line"`
	Type        string   `json:"type" jsonschema:"links_to, embeds or tagged"`
	Target      string   `json:"target" jsonschema:"the link target as written"`
	Heading     string   `json:"heading,omitempty"`
	Block       string   `json:"block,omitempty"`
	Resolved    []string `json:"resolved,omitempty" jsonschema:"the notes the link points at; empty when unresolved"`
}

func (t *mcpTools) backlinks(ctx context.Context, _ *mcp.CallToolRequest, in backlinksInput) (*mcp.CallToolResult, graphOutput, error) {
	note := strings.TrimSpace(in.Note)
	if note == "" {
		return nil, graphOutput{}, errors.New("note is empty")
	}
	return t.graph(ctx, ipc.GraphRequest{Query: ipc.GraphBacklinks, Note: note, Vault: in.Vault},
		fmt.Sprintf("to %q", note), fmt.Sprintf("No notes link to %q.", note))
}

func (t *mcpTools) unresolved(ctx context.Context, _ *mcp.CallToolRequest, in unresolvedInput) (*mcp.CallToolResult, graphOutput, error) {
	return t.graph(ctx, ipc.GraphRequest{Query: ipc.GraphUnresolved, Vault: in.Vault},
		"to notes that do not exist", "No unresolved links.")
}

// graph runs a links query and words it as "N links what:" and a list, or
// as none when there are no links.
func (t *mcpTools) graph(ctx context.Context, req ipc.GraphRequest, what, none string) (*mcp.CallToolResult, graphOutput, error) {
	req.Limit = graphLimit
	ctx, cancel := context.WithTimeout(ctx, mcpCallTimeout)
	defer cancel()
	resp, err := t.c.Graph(ctx, req)
	if err != nil {
		return nil, graphOutput{}, daemonError(err)
	}
	out := graphOutput{Total: resp.Total, Links: make([]graphLink, 0, len(resp.Links))}
	for _, l := range resp.Links {
		out.Links = append(out.Links, graphLink{
			Citation: fmt.Sprintf("%s:L%d", l.Source, l.Line), Vault: l.Vault, Source: l.Source,
			SourceTitle: l.SourceTitle, Line: l.Line, Type: l.Type, Target: l.Target,
			Heading: l.Heading, Block: l.Block, Resolved: l.Resolved,
		})
	}
	if len(out.Links) == 0 {
		return textResult(none), out, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s:\n", plural(out.Total, "link"), what)
	for _, l := range out.Links {
		target := l.Target
		if l.Heading != "" {
			target += "#" + l.Heading
		}
		if l.Block != "" {
			target += "#^" + l.Block
		}
		fmt.Fprintf(&b, "- %s (vault %s): %s %s", l.Citation, l.Vault, l.Type, target)
		if len(l.Resolved) > 0 && l.Type != "tagged" {
			fmt.Fprintf(&b, " → %s", strings.Join(l.Resolved, ", "))
		}
		b.WriteByte('\n')
	}
	if len(out.Links) < out.Total {
		fmt.Fprintf(&b, "… and %d more not listed\n", out.Total-len(out.Links))
	}
	return textResult(strings.TrimRight(b.String(), "\n")), out, nil
}
