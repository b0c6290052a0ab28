package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd/ipc"
)

// MCP search limits: fewer results than the CLI by default, since every
// result's text goes into the model's context.
const (
	mcpDefaultK = 8
	mcpMaxK     = 50
	// mcpCallTimeout bounds one daemon request made by a tool.
	mcpCallTimeout = 30 * time.Second
)

const mcpInstructions = `ragd indexes the user's local note vaults (Markdown and text). ` +
	`Use search to find passages, then get_document to read more of a file around a hit. ` +
	`Cite passages as path:Lstart-Lend, as given in each result's citation.`

// mcpCmd is ragctl mcp.
type mcpCmd struct{}

func (c *mcpCmd) flags(*FlagSet) {}

// run serves the Model Context Protocol over stdin and stdout until stdin
// closes or ragctl is interrupted. Tool calls go to the daemon; when it is
// not running they fail with a tool error and the server carries on.
func (c *mcpCmd) run(ctx context.Context, e *env, args []string) int {
	if len(args) > 0 {
		return e.usage("mcp", "no arguments expected (it serves MCP on stdin/stdout; see docs/mcp.md)")
	}
	cl := e.client()
	defer cl.Close()
	err := newMCPServer(cl).Run(ctx, &lineTransport{in: os.Stdin, out: e.stdout})
	if err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		fmt.Fprintf(e.stderr, "ragctl mcp: %v\n", err)
		return exitFail
	}
	return exitOK
}

// mcpTools serves the MCP tools with one daemon client.
type mcpTools struct {
	c *ipc.Client
}

// newMCPServer returns an MCP server whose tools query the daemon through c.
func newMCPServer(c *ipc.Client) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "ragd", Title: "ragd local notes retrieval", Version: buildVersion()},
		&mcp.ServerOptions{Instructions: mcpInstructions})
	t := &mcpTools{c: c}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)}

	mcp.AddTool(s, &mcp.Tool{
		Name: "search",
		Description: "Search the user's local note vaults (keywords, and meaning when an embedder is configured). " +
			"Returns the best-matching passages, each with its vault, file path, line range, heading, score, " +
			"text and a citation path:Lstart-Lend. Use get_document to read around a hit.",
		InputSchema: inputSchema[searchInput](map[string]func(*jsonschema.Schema){
			"query": func(s *jsonschema.Schema) {
				s.MinLength = jsonschema.Ptr(1)
				s.MaxLength = jsonschema.Ptr(ipc.MaxQueryBytes)
			},
			"k": func(s *jsonschema.Schema) {
				s.Minimum, s.Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(mcpMaxK))
				s.Default = []byte(fmt.Sprint(mcpDefaultK))
			},
		}),
		Annotations: readOnly,
	}, t.search)

	mcp.AddTool(s, &mcp.Tool{
		Name: "get_document",
		Description: "Read a note file from a configured vault, whole or a line range (1-based, inclusive). " +
			"path is vault-relative (as in search results) or absolute; files outside the vaults are refused. " +
			"At most 2000 lines or 1 MiB are returned per call; a truncated answer says where to continue.",
		InputSchema: inputSchema[documentInput](map[string]func(*jsonschema.Schema){
			"path":       func(s *jsonschema.Schema) { s.MinLength = jsonschema.Ptr(1) },
			"line_start": func(s *jsonschema.Schema) { s.Minimum = jsonschema.Ptr(1.0) },
			"line_end":   func(s *jsonschema.Schema) { s.Minimum = jsonschema.Ptr(1.0) },
		}),
		Annotations: readOnly,
	}, t.getDocument)

	mcp.AddTool(s, &mcp.Tool{
		Name: "status",
		Description: "Show whether ragd is idle or indexing, and for each vault its root, " +
			"document, chunk and failed-file counts.",
		Annotations: readOnly,
	}, t.status)

	mcp.AddTool(s, &mcp.Tool{
		Name: "backlinks",
		Description: "List the links, embeds and tags in other notes that point at a note " +
			"(given by path, file name, title or alias), with the line of each link.",
		InputSchema: inputSchema[backlinksInput](map[string]func(*jsonschema.Schema){
			"note": func(s *jsonschema.Schema) { s.MinLength = jsonschema.Ptr(1) },
		}),
		Annotations: readOnly,
	}, t.backlinks)

	mcp.AddTool(s, &mcp.Tool{
		Name:        "unresolved",
		Description: "List links to notes that do not exist (broken or not-yet-written notes), with where each link is.",
		Annotations: readOnly,
	}, t.unresolved)
	addContextTools(s, t, readOnly)
	return s
}

// inputSchema infers the JSON schema of In and lets tweak adjust the
// properties it names (bounds and defaults that struct tags cannot say).
func inputSchema[In any](tweak map[string]func(*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("schema of %T: %v", *new(In), err))
	}
	for name, f := range tweak {
		p := s.Properties[name]
		if p == nil {
			panic(fmt.Sprintf("schema of %T has no property %q", *new(In), name))
		}
		f(p)
	}
	return s
}

// buildVersion is ragctl's module version, "dev" for a plain build.
func buildVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// daemonError words a failed daemon call for the model. A daemon that is
// not running keeps its message, which says how to start it.
func daemonError(err error) error {
	var nr *ipc.NotRunningError
	if errors.As(err, &nr) {
		return fmt.Errorf("%w; then call this tool again", err)
	}
	var ie *ipc.Error
	if errors.As(err, &ie) {
		return fmt.Errorf("ragd: %s", ie.Message)
	}
	return err
}

// citation formats a line range the way ragctl prints it: path:L3-L9.
func citation(path string, start, end int) string {
	return fmt.Sprintf("%s:L%d-L%d", path, start, end)
}

// plural is "1 link", "2 links".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

type searchInput struct {
	Query      string `json:"query" jsonschema:"what to look for: keywords, a phrase or a question"`
	K          int    `json:"k,omitempty" jsonschema:"number of passages to return, 1 to 50 (default 8)"`
	Vault      string `json:"vault,omitempty" jsonschema:"search only this vault (by name, as in status); all vaults when empty"`
	PathPrefix string `json:"path_prefix,omitempty" jsonschema:"search only files whose vault-relative path starts with this, e.g. a folder like projects/"`
}

type searchOutput struct {
	Query   string      `json:"query"`
	Results []searchHit `json:"results" jsonschema:"passages, best first"`
}

type searchHit struct {
	Citation  string  `json:"citation" jsonschema:"path:Lstart-Lend, to cite the passage"`
	Vault     string  `json:"vault"`
	Path      string  `json:"path" jsonschema:"file path relative to the vault root"`
	LineStart int     `json:"line_start" jsonschema:"first line of the passage, 1-based"`
	LineEnd   int     `json:"line_end" jsonschema:"last line of the passage, inclusive"`
	Heading   string  `json:"heading" jsonschema:"the headings above the passage, joined with ' > '"`
	Title     string  `json:"title,omitempty"`
	Score     float64 `json:"score" jsonschema:"relevance, higher is better; comparable within one search only"`
	Text      string  `json:"text" jsonschema:"the exact text of those lines"`
}

func (t *mcpTools) search(ctx context.Context, _ *mcp.CallToolRequest, in searchInput) (*mcp.CallToolResult, searchOutput, error) {
	q := strings.TrimSpace(in.Query)
	k := in.K
	if k == 0 {
		k = mcpDefaultK
	}
	switch {
	case q == "":
		return nil, searchOutput{}, errors.New("query is empty")
	case k < 1 || k > mcpMaxK:
		return nil, searchOutput{}, fmt.Errorf("k must be between 1 and %d, got %d", mcpMaxK, k)
	}
	req := ipc.SearchRequest{Query: q, K: k, PathPrefix: in.PathPrefix}
	if in.Vault != "" {
		req.Vaults = []string{in.Vault}
	}
	ctx, cancel := context.WithTimeout(ctx, mcpCallTimeout)
	defer cancel()
	resp, err := t.c.Search(ctx, req)
	if err != nil {
		return nil, searchOutput{}, daemonError(err)
	}
	out := searchOutput{Query: q, Results: make([]searchHit, 0, len(resp.Results))}
	for _, r := range resp.Results {
		out.Results = append(out.Results, searchHit{
			Citation: citation(r.Path, r.LineStart, r.LineEnd), Vault: r.Vault, Path: r.Path,
			LineStart: r.LineStart, LineEnd: r.LineEnd, Heading: r.Heading, Title: r.Title,
			Score: r.Score, Text: r.Text,
		})
	}
	return textResult(formatHits(out)), out, nil
}

// formatHits is the text form of a search: a numbered list of citations,
// each followed by its heading and the passage, indented.
func formatHits(out searchOutput) string {
	var b strings.Builder
	if len(out.Results) == 0 {
		fmt.Fprintf(&b, "No results for %q.", out.Query)
		return b.String()
	}
	fmt.Fprintf(&b, "%s for %q:\n", plural(len(out.Results), "result"), out.Query)
	for i, h := range out.Results {
		fmt.Fprintf(&b, "\n%d. %s (vault %s, score %.3f)\n", i+1, h.Citation, h.Vault, h.Score)
		heading := h.Heading
		if heading == "" {
			heading = h.Title
		}
		if heading != "" {
			fmt.Fprintf(&b, "   § %s\n", heading)
		}
		if text := strings.TrimRight(h.Text, "\n"); text != "" {
			for line := range strings.SplitSeq(text, "\n") {
				if line = strings.TrimRight(line, "\r"); line != "" {
					b.WriteString("   " + line)
				}
				b.WriteByte('\n')
			}
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

type statusOutput struct {
	State    string           `json:"state" jsonschema:"idle or indexing"`
	Version  string           `json:"version"`
	Progress *ipc.Progress    `json:"progress,omitempty" jsonschema:"the indexing pass in flight, if any"`
	Vaults   []vaultOutput    `json:"vaults"`
	Graph    *ipc.GraphStatus `json:"graph,omitempty"`
	Semantic string           `json:"semantic,omitempty"`
}

type vaultOutput struct {
	Name        string           `json:"name"`
	Path        string           `json:"path" jsonschema:"absolute path of the vault root"`
	Online      bool             `json:"online" jsonschema:"false when the vault root is missing (e.g. an unplugged disk)"`
	Documents   int              `json:"documents"`
	Chunks      int              `json:"chunks"`
	Failed      int              `json:"failed" jsonschema:"files that could not be indexed"`
	FailedFiles []ipc.FailedFile `json:"failed_files,omitempty"`
	LastError   string           `json:"last_error,omitempty"`
	Watching    string           `json:"watching,omitempty" jsonschema:"watching, polling, off or offline"`
	Queued      int              `json:"queued"`
}

func (t *mcpTools) status(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, statusOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, mcpCallTimeout)
	defer cancel()
	st, err := t.c.Status(ctx)
	if err != nil {
		return nil, statusOutput{}, daemonError(err)
	}
	out := statusOutput{State: st.State, Version: st.Version, Progress: st.Progress, Graph: st.Graph,
		Semantic: st.Semantic, Vaults: make([]vaultOutput, 0, len(st.Vaults))}
	for _, v := range st.Vaults {
		out.Vaults = append(out.Vaults, vaultOutput{Name: v.Name, Path: v.Path, Online: v.Online,
			Documents: v.Documents, Chunks: v.Chunks, Failed: v.Failed, FailedFiles: v.FailedFiles,
			LastError: v.LastError, Watching: v.Watching, Queued: v.Queued})
	}
	var b strings.Builder
	printStatus(&b, st, time.Now())
	return textResult(strings.TrimRight(b.String(), "\n")), out, nil
}
