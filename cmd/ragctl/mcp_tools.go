package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd/ipc"
)

// get_document limits: what one call returns at most.
const (
	docMaxBytes = 1 << 20
	docMaxLines = 2000
	// docSniffBytes is how much of a file is checked for NUL bytes, the
	// sign of a binary file.
	docSniffBytes = 8 << 10
	// graphLimit is the most links a graph tool lists.
	graphLimit = 200
)

type documentInput struct {
	Path      string `json:"path" jsonschema:"the file: vault-relative (as in search results) or absolute, inside a configured vault"`
	Vault     string `json:"vault,omitempty" jsonschema:"the vault the path is in; needed only when a relative path exists in several vaults"`
	LineStart int    `json:"line_start,omitempty" jsonschema:"first line to return, 1-based (default 1)"`
	LineEnd   int    `json:"line_end,omitempty" jsonschema:"last line to return, inclusive (default: the end of the file)"`
}

type documentOutput struct {
	Citation  string `json:"citation" jsonschema:"path:Lstart-Lend of the returned text"`
	Vault     string `json:"vault"`
	Path      string `json:"path" jsonschema:"file path relative to the vault root"`
	LineStart int    `json:"line_start" jsonschema:"first line returned, 1-based"`
	LineEnd   int    `json:"line_end" jsonschema:"last line returned (0 for an empty file)"`
	Truncated bool   `json:"truncated" jsonschema:"true when the requested lines go on past the 2000-line or 1 MiB limit"`
	NextLine  int    `json:"next_line,omitempty" jsonschema:"when truncated: the line_start that continues the reading"`
	Text      string `json:"text"`
}

func (t *mcpTools) getDocument(ctx context.Context, _ *mcp.CallToolRequest, in documentInput) (*mcp.CallToolResult, documentOutput, error) {
	start, end := in.LineStart, in.LineEnd
	if start == 0 {
		start = 1
	}
	switch {
	case strings.TrimSpace(in.Path) == "":
		return nil, documentOutput{}, errors.New("path is empty")
	case start < 1 || end < 0:
		return nil, documentOutput{}, errors.New("line numbers start at 1")
	case end != 0 && end < start:
		return nil, documentOutput{}, fmt.Errorf("line_end %d is before line_start %d", end, start)
	}
	ctx, cancel := context.WithTimeout(ctx, mcpCallTimeout)
	defer cancel()
	st, err := t.c.Status(ctx)
	if err != nil {
		return nil, documentOutput{}, daemonError(err)
	}
	v, rel, err := resolveVaultPath(st.Vaults, in.Vault, in.Path)
	if err != nil {
		return nil, documentOutput{}, err
	}
	out, err := readVaultFile(v, rel, start, end)
	if err != nil {
		return nil, documentOutput{}, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (vault %s)\n\n%s", out.Citation, out.Vault, out.Text)
	if out.Truncated {
		if !strings.HasSuffix(out.Text, "\n") {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "\n[truncated at %d lines or 1 MiB: the file goes on; call get_document with line_start=%d to read more]",
			docMaxLines, out.NextLine)
	}
	return textResult(b.String()), out, nil
}

// resolveVaultPath finds the vault holding path and the path relative to
// its root. An absolute path must lie inside a vault root; a relative one
// must not climb out of it. With several vaults and no vault named, a
// relative path must exist in exactly one of them.
func resolveVaultPath(vaults []ipc.VaultStatus, vault, path string) (ipc.VaultStatus, string, error) {
	if vault != "" {
		var found []ipc.VaultStatus
		for _, v := range vaults {
			if v.Name == vault {
				found = append(found, v)
			}
		}
		if len(found) == 0 {
			return ipc.VaultStatus{}, "", fmt.Errorf("no vault named %q; vaults: %s", vault, vaultNames(vaults))
		}
		vaults = found
	}
	if len(vaults) == 0 {
		return ipc.VaultStatus{}, "", errors.New("ragd has no vaults configured")
	}

	if filepath.IsAbs(path) {
		clean := filepath.Clean(path)
		var best ipc.VaultStatus
		var bestRel string
		bestLen := -1
		for _, v := range vaults {
			for _, root := range vaultRoots(v.Path) {
				if rel, ok := within(root, clean); ok && len(root) > bestLen {
					best, bestRel, bestLen = v, rel, len(root)
				}
			}
		}
		if bestLen < 0 {
			return ipc.VaultStatus{}, "", fmt.Errorf("refusing %s: it is not inside a configured vault (%s)", path, vaultRootList(vaults))
		}
		return best, bestRel, nil
	}

	rel := filepath.Clean(filepath.FromSlash(path))
	if !filepath.IsLocal(rel) {
		return ipc.VaultStatus{}, "", fmt.Errorf("refusing %s: the path leads out of the vault", path)
	}
	if len(vaults) == 1 {
		return vaults[0], rel, nil
	}
	var have []ipc.VaultStatus
	for _, v := range vaults {
		if _, err := os.Lstat(filepath.Join(v.Path, rel)); err == nil {
			have = append(have, v)
		}
	}
	switch len(have) {
	case 0:
		return ipc.VaultStatus{}, "", fmt.Errorf("no file %s in any vault (%s)", path, vaultNames(vaults))
	case 1:
		return have[0], rel, nil
	}
	return ipc.VaultStatus{}, "", fmt.Errorf("%s exists in several vaults (%s): pass vault to choose one", path, vaultNames(have))
}

// vaultRoots is a vault root as configured and, if that differs, with its
// symbolic links resolved, so absolute paths given either way are found.
func vaultRoots(root string) []string {
	roots := []string{filepath.Clean(root)}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != roots[0] {
		roots = append(roots, real)
	}
	return roots
}

// within returns path relative to root if path is root or lies under it.
func within(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return rel, true
}

func vaultNames(vaults []ipc.VaultStatus) string {
	names := make([]string, len(vaults))
	for i, v := range vaults {
		names[i] = v.Name
	}
	return strings.Join(names, ", ")
}

func vaultRootList(vaults []ipc.VaultStatus) string {
	roots := make([]string, len(vaults))
	for i, v := range vaults {
		roots[i] = v.Name + ": " + v.Path
	}
	return strings.Join(roots, ", ")
}

// readVaultFile reads lines start to end (0: to the end) of the file rel
// in vault v, at most docMaxLines lines and docMaxBytes bytes. It refuses
// files that resolve outside the vault root, through symbolic links too:
// the path is resolved and checked first, for a clear message, and the
// resolved path is then opened through an os.Root of the resolved vault
// root, so that the check holds even if links change meanwhile.
func readVaultFile(v ipc.VaultStatus, rel string, start, end int) (documentOutput, error) {
	display := filepath.ToSlash(rel)
	realRoot, err := filepath.EvalSymlinks(v.Path)
	if err != nil {
		return documentOutput{}, fmt.Errorf("cannot open vault %s at %s: %w", v.Name, v.Path, err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(v.Path, rel))
	if errors.Is(err, fs.ErrNotExist) {
		return documentOutput{}, fmt.Errorf("no file %s in vault %s", display, v.Name)
	} else if err != nil {
		return documentOutput{}, fmt.Errorf("%s in vault %s: %w", display, v.Name, err)
	}
	realRel, ok := within(realRoot, real)
	if !ok {
		return documentOutput{}, fmt.Errorf("refusing %s: it is a symbolic link that leads out of vault %s", display, v.Name)
	}
	root, err := os.OpenRoot(realRoot)
	if err != nil {
		return documentOutput{}, fmt.Errorf("cannot open vault %s at %s: %w", v.Name, v.Path, err)
	}
	defer root.Close()

	fi, err := root.Stat(realRel)
	if err != nil {
		return documentOutput{}, fmt.Errorf("refusing %s in vault %s: %w", display, v.Name, err)
	}
	if fi.IsDir() {
		return documentOutput{}, fmt.Errorf("%s in vault %s is a directory; pass a file (search results name them)", display, v.Name)
	}
	if !fi.Mode().IsRegular() {
		return documentOutput{}, fmt.Errorf("refusing %s in vault %s: not a regular file", display, v.Name)
	}
	f, err := root.Open(realRel)
	if err != nil {
		return documentOutput{}, fmt.Errorf("refusing %s in vault %s: %w", display, v.Name, err)
	}
	defer f.Close()
	if ofi, err := f.Stat(); err != nil || !os.SameFile(fi, ofi) {
		return documentOutput{}, fmt.Errorf("%s in vault %s changed while being opened; try again", display, v.Name)
	}

	out, err := readLines(f, start, end)
	if err != nil {
		return documentOutput{}, fmt.Errorf("%s in vault %s: %w", display, v.Name, err)
	}
	out.Vault, out.Path = v.Name, display
	out.Citation = citation(display, out.LineStart, out.LineEnd)
	if out.LineEnd == 0 {
		out.Citation = display // an empty file
	}
	return out, nil
}

// readLines returns lines start to end (0: to the end of r), keeping their
// line endings, cut short after docMaxLines lines or docMaxBytes bytes.
// Only whole lines are returned, unless the first line alone is over the
// byte limit.
func readLines(r io.Reader, start, end int) (documentOutput, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if head, _ := br.Peek(docSniffBytes); bytes.IndexByte(head, 0) >= 0 {
		return documentOutput{}, errors.New("binary file (it holds NUL bytes); only text files can be read")
	}
	out := documentOutput{LineStart: start}
	var b bytes.Buffer
	line := 1        // line the next bytes belong to
	lineStart := 0   // b.Len() when the current line began
	midLine := false // the previous chunk ended without a newline
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			if line >= start && (end == 0 || line <= end) {
				if !midLine {
					if line-start >= docMaxLines {
						out.Truncated, out.NextLine = true, line
						break
					}
					lineStart = b.Len()
				}
				if b.Len()+len(chunk) > docMaxBytes {
					out.Truncated = true
					if lineStart > 0 {
						// Drop the partial line: whole lines only.
						b.Truncate(lineStart)
						out.LineEnd, out.NextLine = line-1, line
					} else {
						// The first line alone is over the limit: cut it
						// at a rune boundary.
						n := docMaxBytes - b.Len()
						for n > 0 && !utf8.RuneStart(chunk[n]) {
							n--
						}
						b.Write(chunk[:n])
						out.LineEnd, out.NextLine = line, line+1
					}
					break
				}
				b.Write(chunk)
				out.LineEnd = line
			}
			midLine = chunk[len(chunk)-1] != '\n'
			if !midLine {
				line++
				if end != 0 && line > end {
					break
				}
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return documentOutput{}, err
		}
	}
	if out.LineEnd == 0 && start > 1 {
		lines := line - 1
		if midLine {
			lines = line
		}
		return documentOutput{}, fmt.Errorf("line_start %d is past the end: the file has %d lines", start, lines)
	}
	out.Text = b.String()
	return out, nil
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
