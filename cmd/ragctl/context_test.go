package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ragd/ragd/ipc"
)

func (f *fakeBackend) Context(ctx context.Context, req ipc.ContextRequest) (*ipc.ContextResponse, error) {
	if strings.Contains(req.Query, "nothing") {
		return &ipc.ContextResponse{Query: req.Query, Citations: []ipc.ContextCitation{},
			Suggestions: []string{"try other keywords: synonyms, or the words your notes would use"}}, nil
	}
	return &ipc.ContextResponse{Query: req.Query, Grounded: true,
		Context:   "<retrieved-context>\n[1] a.md:L1-L2 — A\nalpha\nbeta\n</retrieved-context>\n",
		Citations: []ipc.ContextCitation{{Vault: "notes", Path: "a.md", LineStart: 1, LineEnd: 2, Cite: "a.md:L1-L2"}}}, nil
}

func (f *fakeBackend) Similar(ctx context.Context, req ipc.SimilarRequest) (*ipc.SimilarResponse, error) {
	if req.Path == "missing.md" {
		return nil, ipc.NotFound("missing.md is not indexed in any vault")
	}
	return &ipc.SimilarResponse{Vault: "notes", Path: req.Path, Degraded: []string{"vector"}, Notes: []ipc.SimilarNote{
		{Vault: "notes", Path: "b.md", Title: "B", Score: 0.0325, LineStart: 3, LineEnd: 9, Heading: "B > Setup", Why: "terms+links"},
		{Vault: "notes", Path: "c.md", Title: "C", Score: 0.0161, Why: "links"},
	}}, nil
}

func (f *fakeBackend) Plugins(ctx context.Context) (*ipc.PluginsResponse, error) {
	return &ipc.PluginsResponse{Plugins: samplePlugins()}, nil
}

func samplePlugins() []ipc.PluginStatus {
	return []ipc.PluginStatus{
		{Name: "pdf", Kind: "extractor", Command: "/usr/bin/ragd", Builtin: true, State: ipc.PluginRunning, PID: 10, Calls: 120, P50MS: 4.2, P95MS: 31},
		{Name: "embed", Kind: "embedder", Command: "node", State: ipc.PluginFailed, Restarts: 3, Errors: 2,
			LastError: "plugin exited during start-up: Error: Cannot find module 'x'"},
		{Name: "heuristic", Kind: "reranker", Builtin: true, InProcess: true, State: ipc.PluginRunning, Calls: 41, P50MS: 0.02, P95MS: 0.05},
	}
}

func TestContextSimilarPluginsGolden(t *testing.T) {
	var b bytes.Buffer
	printContext(&b, &ipc.ContextResponse{Query: "q", Grounded: true, Context: "<retrieved-context>\n[1] a.md:L1-L1\nx\n</retrieved-context>"})
	printContext(&b, &ipc.ContextResponse{Query: "nothing here", Suggestions: []string{"widen the scope"}})
	golden(t, "context.golden", b.Bytes())

	b.Reset()
	resp, _ := (&fakeBackend{}).Similar(context.Background(), ipc.SimilarRequest{Path: "a.md"})
	printSimilar(&b, resp)
	printSimilar(&b, &ipc.SimilarResponse{Path: "lonely.md"})
	golden(t, "similar.golden", b.Bytes())

	b.Reset()
	printPlugins(&b, &ipc.PluginsResponse{Plugins: samplePlugins()})
	golden(t, "plugins.golden", b.Bytes())
}

func TestContextSimilarExitCodes(t *testing.T) {
	dir := isolate(t)
	_ = dir
	sock := serveFake(t, &fakeBackend{})
	tests := []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"context", "restic"}, exitOK, "<retrieved-context>"},
		{[]string{"context", "nothing at all"}, exitFail, "nothing in the vaults answers"},
		{[]string{"context"}, exitUsage, ""},
		{[]string{"similar", "a.md"}, exitOK, "b.md"},
		{[]string{"similar", "missing.md"}, exitFail, ""},
		{[]string{"similar"}, exitUsage, ""},
		{[]string{"plugins"}, exitOK, "pdf"},
		{[]string{"plugins", "-json"}, exitOK, `"state": "running"`},
	}
	for _, tt := range tests {
		code, out, errOut := runCmd(t, append([]string{"-socket", sock}, tt.args...)...)
		if code != tt.code || !strings.Contains(out, tt.out) {
			t.Errorf("ragctl %v: exit %d, want %d; stdout %q stderr %q", tt.args, code, tt.code, out, errOut)
		}
	}
}

// On a terminal results are coloured; NO_COLOR and pipes get plain text.
func TestResultsColourOnlyOnTerminal(t *testing.T) {
	resp := &ipc.SearchResponse{Query: "q", Results: sampleResults()[:1]}
	var plain, tty bytes.Buffer
	printResults(&plain, resp)
	printResultsColored(&tty, resp, (&env{isTTY: true}).colors(), 0)
	if strings.Contains(plain.String(), "\x1b[") {
		t.Errorf("plain output has escapes: %q", plain.String())
	}
	if !strings.Contains(tty.String(), "\x1b[1;36m") {
		t.Errorf("terminal output is not coloured: %q", tty.String())
	}
	t.Setenv("NO_COLOR", "1")
	if (&env{isTTY: true}).colors().on {
		t.Error("NO_COLOR ignored")
	}
	strip := strings.NewReplacer("\x1b[1;36m", "", "\x1b[33m", "", "\x1b[2m", "", "\x1b[31m", "", "\x1b[0m", "")
	if got := strip.Replace(tty.String()); got != plain.String() {
		t.Errorf("coloured output differs from plain beyond escapes:\n%q\n%q", got, plain.String())
	}
}
