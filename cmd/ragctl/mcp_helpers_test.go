package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/ragd/ragd/ipc/ipctest"
)

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// startMCP runs `ragctl -socket sock mcp` (this test binary re-executed)
// and connects an MCP client to it over its stdin and stdout. At cleanup
// the client closes stdin, and ragctl must then exit 0 by itself.
func startMCP(t *testing.T, sock string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-socket", sock, "mcp")
	cmd.Env = append(os.Environ(), "RAGCTL_TEST_MAIN=1")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "ragctl-test", Version: "v0.0.1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 10 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to ragctl mcp: %v (stderr %q)", err, stderr.String())
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
		if st := cmd.ProcessState; st == nil || !st.Success() {
			t.Errorf("ragctl mcp did not exit 0 when stdin closed: %v (stderr %q)", st, stderr.String())
		}
	})
	return cs
}

// callTool calls a tool; tool errors are returned in the result, only
// protocol errors fail the test.
func callTool(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	return res
}

// textOf joins a result's text content.
func textOf(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// mustSucceed fails the test if res is a tool error, and decodes its
// structured content into out.
func mustSucceed(t *testing.T, res *mcp.CallToolResult, out any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", textOf(res))
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// mustFail fails the test unless res is a tool error whose text has want.
func mustFail(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error with %q, got success: %s", want, textOf(res))
	}
	if !strings.Contains(textOf(res), want) {
		t.Errorf("tool error %q lacks %q", textOf(res), want)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func numberedLines(prefix string, from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "%s %d\n", prefix, i)
	}
	return b.String()
}

// mcpVaults makes two vaults and a secret file beside them, with links
// that stay inside a vault and one that leads out.
func mcpVaults(t *testing.T) (dir, notes, work string) {
	t.Helper()
	dir = ipctest.ShortDir(t)
	notes, work = filepath.Join(dir, "notes"), filepath.Join(dir, "work")
	writeFile(t, filepath.Join(notes, "ops", "Restic Backups.md"), numberedLines("restic line", 1, 30))
	writeFile(t, filepath.Join(notes, "Long.md"), numberedLines("long line", 1, 2100))
	writeFile(t, filepath.Join(notes, "shared.md"), "in notes\n")
	writeFile(t, filepath.Join(work, "shared.md"), "in work\n")
	writeFile(t, filepath.Join(dir, "secret.md"), "TOP SECRET\n")
	for link, target := range map[string]string{
		filepath.Join(notes, "escape.md"):        filepath.Join("..", "secret.md"),
		filepath.Join(notes, "ops", "abs.md"):    filepath.Join(dir, "secret.md"),
		filepath.Join(notes, "dirlink"):          dir,
		filepath.Join(notes, "relative-link.md"): filepath.Join("ops", "Restic Backups.md"),
		filepath.Join(notes, "absolute-link.md"): filepath.Join(notes, "ops", "Restic Backups.md"),
	} {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	return dir, notes, work
}
