package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ragd/ragd/ipc"
)

// TestMain lets the tests run this binary as ragctl: with
// RAGCTL_TEST_MAIN=1 it is ragctl, given the arguments after the program
// name.
func TestMain(m *testing.M) {
	if os.Getenv("RAGCTL_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// lockedBuffer collects a child's stderr.

func TestMCP(t *testing.T) {
	isolate(t)
	dir, notes, work := mcpVaults(t)
	st := sampleStatus()
	st.Vaults = []ipc.VaultStatus{
		{Name: "notes", Path: notes, Online: true, Documents: 4, Chunks: 40, Failed: 1, Watching: "watching"},
		{Name: "work", Path: work, Online: true, Documents: 1, Chunks: 1, Watching: "watching"},
	}
	f := &fakeBackend{
		results:  sampleResults(),
		statuses: []*ipc.StatusResponse{st},
		graph: map[string]*ipc.GraphResponse{
			ipc.GraphBacklinks: {Total: 2, Links: []ipc.GraphLink{
				{Vault: "notes", Source: "Backup plan.md", SourceTitle: "Backup plan", Type: "links_to",
					Target: "Restic Backups", Heading: "Retention", Line: 7, Resolved: []string{"ops/Restic Backups.md"}},
				{Vault: "notes", Source: "2024/2024-03-14.md", Type: "embeds", Target: "Restic Backups", Line: 3,
					Resolved: []string{"ops/Restic Backups.md"}},
			}},
			ipc.GraphUnresolved: {Total: 1, Links: []ipc.GraphLink{
				{Vault: "work", Source: "todo.md", Type: "links_to", Target: "Missing Note", Line: 12},
			}},
		},
	}
	cs := startMCP(t, serveFake(t, f))
	ctx := t.Context()

	t.Run("list tools", func(t *testing.T) {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			if len(tool.Description) < 40 {
				t.Errorf("%s: description %q is too thin", tool.Name, tool.Description)
			}
			if tool.OutputSchema == nil {
				t.Errorf("%s: no output schema", tool.Name)
			}
			if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
				t.Errorf("%s: not annotated read-only", tool.Name)
			}
		}
		slices.Sort(names)
		if want := []string{"backlinks", "context", "get_document", "search", "similar", "status", "unresolved"}; !slices.Equal(names, want) {
			t.Errorf("tools %q, want %q", names, want)
		}
		var schema struct {
			Type       string   `json:"type"`
			Required   []string `json:"required"`
			Properties map[string]struct {
				Type    any     `json:"type"`
				Default any     `json:"default"`
				Maximum float64 `json:"maximum"`
			} `json:"properties"`
		}
		i := slices.IndexFunc(res.Tools, func(tool *mcp.Tool) bool { return tool.Name == "search" })
		b, _ := json.Marshal(res.Tools[i].InputSchema)
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		k := schema.Properties["k"]
		if schema.Type != "object" || !slices.Equal(schema.Required, []string{"query"}) || k.Default != 8.0 || k.Maximum != 50 {
			t.Errorf("search input schema %s", b)
		}
		for _, p := range []string{"query", "k", "vault", "path_prefix"} {
			if _, ok := schema.Properties[p]; !ok {
				t.Errorf("search input schema lacks %q: %s", p, b)
			}
		}
	})

	t.Run("search", func(t *testing.T) {
		res := callTool(t, cs, "search", map[string]any{"query": " restic retention ", "vault": "notes", "path_prefix": "ops/"})
		var out searchOutput
		mustSucceed(t, res, &out)
		got := f.lastSearch()
		if got.Query != "restic retention" || got.K != 8 || !slices.Equal(got.Vaults, []string{"notes"}) || got.PathPrefix != "ops/" {
			t.Errorf("daemon got %+v", got)
		}
		want := []string{"Restic Backups.md:L12-L20", "2024/2024-03-14.md:L1-L4", "ZFS Pool.md:L40-L41", "Ünïcode/Café.md:L100-L180"}
		if len(out.Results) != len(want) {
			t.Fatalf("got %d results, want %d", len(out.Results), len(want))
		}
		for i, r := range out.Results {
			if r.Citation != want[i] {
				t.Errorf("result %d: citation %q, want %q", i, r.Citation, want[i])
			}
		}
		first := out.Results[0]
		if first.Path != "Restic Backups.md" || first.Vault != "notes" || first.LineStart != 12 || first.LineEnd != 20 ||
			first.Heading != "Restic Backups > Retention" || first.Score != 7.12345 || !strings.Contains(first.Text, "restic forget") {
			t.Errorf("first result %+v", first)
		}
		text := textOf(res)
		for _, s := range []string{"4 results for \"restic retention\":\n\n1. Restic Backups.md:L12-L20 (vault notes, score 7.123)\n",
			"   4 weekly and   12 monthly snapshots:\n\n       restic forget", "§ Restic Backups > Retention",
			"restic forget --keep-daily 7", "4. Ünïcode/Café.md:L100-L180", "§ 2024-03-14"} {
			if !strings.Contains(text, s) {
				t.Errorf("text content lacks %q:\n%s", s, text)
			}
		}

		mustSucceed(t, callTool(t, cs, "search", map[string]any{"query": "x", "k": 50}), &out)
		if got := f.lastSearch(); got.K != 50 || got.Vaults != nil {
			t.Errorf("k 50: daemon got %+v", got)
		}
		mustFail(t, callTool(t, cs, "search", map[string]any{"query": "x", "k": 51}), "")
		mustFail(t, callTool(t, cs, "search", map[string]any{"k": 3}), "query")
		mustFail(t, callTool(t, cs, "search", map[string]any{"query": "x", "vault": "nope"}), `no vault named "nope"`)
	})

	t.Run("search without hits", func(t *testing.T) {
		f.mu.Lock()
		f.results = nil
		f.mu.Unlock()
		defer func() {
			f.mu.Lock()
			f.results = sampleResults()
			f.mu.Unlock()
		}()
		res := callTool(t, cs, "search", map[string]any{"query": "zebra"})
		var out searchOutput
		mustSucceed(t, res, &out)
		if len(out.Results) != 0 || textOf(res) != `No results for "zebra".` {
			t.Errorf("%+v %q", out, textOf(res))
		}
	})

	t.Run("get_document", func(t *testing.T) {
		res := callTool(t, cs, "get_document", map[string]any{"path": "ops/Restic Backups.md", "vault": "notes", "line_start": 3, "line_end": 5})
		var out documentOutput
		mustSucceed(t, res, &out)
		want := documentOutput{Citation: "ops/Restic Backups.md:L3-L5", Vault: "notes", Path: "ops/Restic Backups.md",
			Kind: "markdown", LineStart: 3, LineEnd: 5, Lines: 30, Text: "restic line 3\nrestic line 4\nrestic line 5\n"}
		if !reflect.DeepEqual(out, want) {
			t.Errorf("got %+v\nwant %+v", out, want)
		}
		if text := textOf(res); text != "ops/Restic Backups.md:L3-L5 (vault notes)\n\n"+want.Text {
			t.Errorf("text content %q", text)
		}

		// The whole file, found without naming the vault; an absolute
		// path; a range running past the end.
		for _, args := range []map[string]any{
			{"path": "ops/Restic Backups.md"},
			{"path": filepath.Join(notes, "ops", "Restic Backups.md")},
			{"path": filepath.Join(notes, "ops", "Restic Backups.md"), "vault": "notes"},
			{"path": "ops/../ops/Restic Backups.md", "line_end": 100},
			{"path": "relative-link.md"},
			{"path": "absolute-link.md"},
		} {
			var out documentOutput
			mustSucceed(t, callTool(t, cs, "get_document", args), &out)
			if out.Text != numberedLines("restic line", 1, 30) || out.LineStart != 1 || out.LineEnd != 30 || out.Truncated || out.Vault != "notes" {
				t.Errorf("%v: got lines %d-%d of vault %q, truncated %v", args, out.LineStart, out.LineEnd, out.Vault, out.Truncated)
			}
		}

		// A file name in both vaults needs the vault.
		mustFail(t, callTool(t, cs, "get_document", map[string]any{"path": "shared.md"}), "exists in vaults notes, work")
		mustSucceed(t, callTool(t, cs, "get_document", map[string]any{"path": "shared.md", "vault": "work"}), &out)
		if out.Text != "in work\n" || out.Vault != "work" {
			t.Errorf("shared.md in work: %+v", out)
		}

		// Over 2000 lines: cut, and the text says so and where to go on.
		res = callTool(t, cs, "get_document", map[string]any{"path": "Long.md"})
		mustSucceed(t, res, &out)
		if !out.Truncated || out.LineEnd != 2000 || out.NextLine != 2001 || out.Text != numberedLines("long line", 1, 2000) {
			t.Errorf("Long.md: lines %d-%d, truncated %v, next %d", out.LineStart, out.LineEnd, out.Truncated, out.NextLine)
		}
		if text := textOf(res); !strings.Contains(text, "truncated") || !strings.Contains(text, "line_start=2001") {
			t.Errorf("truncation is not said: …%s", text[max(0, len(text)-200):])
		}
		mustSucceed(t, callTool(t, cs, "get_document", map[string]any{"path": "Long.md", "line_start": 2001}), &out)
		if out.Truncated || out.Text != numberedLines("long line", 2001, 2100) {
			t.Errorf("Long.md from 2001: lines %d-%d, truncated %v", out.LineStart, out.LineEnd, out.Truncated)
		}
	})

	t.Run("get_document refuses", func(t *testing.T) {
		tests := []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"path": "../secret.md"}, "leads out of the vault"},
			{map[string]any{"path": "../secret.md", "vault": "notes"}, "leads out of the vault"},
			{map[string]any{"path": "ops/../../secret.md", "vault": "notes"}, "leads out of the vault"},
			{map[string]any{"path": filepath.Join(dir, "secret.md")}, "not inside any configured vault"},
			{map[string]any{"path": filepath.Join(notes, "..", "secret.md")}, "not inside any configured vault"},
			{map[string]any{"path": filepath.Join(work, "shared.md"), "vault": "notes"}, "not inside any configured vault"},
			{map[string]any{"path": "/etc/passwd"}, "not inside any configured vault"},
			{map[string]any{"path": "escape.md", "vault": "notes"}, "refused"},
			{map[string]any{"path": filepath.Join(notes, "escape.md")}, "refused"},
			{map[string]any{"path": "ops/abs.md", "vault": "notes"}, "refused"},
			{map[string]any{"path": "dirlink/secret.md", "vault": "notes"}, "refused"},
			{map[string]any{"path": "ops", "vault": "notes"}, "not a regular file"},
			{map[string]any{"path": "missing.md", "vault": "notes"}, "missing.md is not indexed in vault"},
			{map[string]any{"path": "shared.md", "vault": "nope"}, `no vault named "nope"`},
			{map[string]any{"path": "shared.md", "vault": "work", "line_start": 5}, "line 5 is past the end: shared.md has 1 lines"},
			{map[string]any{"path": "shared.md", "vault": "work", "line_start": 5, "line_end": 2}, "before line_start"},
			{map[string]any{"path": "shared.md", "vault": "work", "line_start": 0}, "line_start"},
			{map[string]any{"vault": "work"}, "path"},
		}
		for _, tt := range tests {
			res := callTool(t, cs, "get_document", tt.args)
			mustFail(t, res, tt.want)
			if strings.Contains(textOf(res), "TOP SECRET") {
				t.Errorf("%v: the secret leaked: %s", tt.args, textOf(res))
			}
		}
	})

	t.Run("status", func(t *testing.T) {
		res := callTool(t, cs, "status", nil)
		var out statusOutput
		mustSucceed(t, res, &out)
		if out.State != ipc.StateIdle || out.Version != "v0.1.0" || len(out.Vaults) != 2 {
			t.Fatalf("status %+v", out)
		}
		if v := out.Vaults[0]; v.Name != "notes" || v.Path != notes || v.Documents != 4 || v.Chunks != 40 || v.Failed != 1 || !v.Online {
			t.Errorf("first vault %+v", v)
		}
		text := textOf(res)
		if !strings.HasPrefix(text, fmt.Sprintf("ragd v0.1.0, protocol %d, pid 4242, up ", ipc.ProtocolVersion)) || !strings.Contains(text, "VAULT") || !strings.Contains(text, "notes") {
			t.Errorf("text content:\n%s", text)
		}
	})

	t.Run("context", func(t *testing.T) {
		res := callTool(t, cs, "context", map[string]any{"query": "restic retention", "budget": 2000})
		var out contextOutput
		mustSucceed(t, res, &out)
		if !out.Grounded || len(out.Citations) != 1 || out.Citations[0].Citation != "a.md:L1-L2" || out.Citations[0].N != 1 {
			t.Errorf("context %+v", out)
		}
		if !strings.HasPrefix(textOf(res), "<retrieved-context>") {
			t.Errorf("text content: %s", textOf(res))
		}
		res = callTool(t, cs, "context", map[string]any{"query": "nothing like this"})
		mustSucceed(t, res, &out)
		if out.Grounded || !strings.Contains(textOf(res), "grounded: false") {
			t.Errorf("ungrounded context %+v: %s", out, textOf(res))
		}
		mustFail(t, callTool(t, cs, "context", map[string]any{"query": " "}), "query")
	})

	t.Run("similar", func(t *testing.T) {
		res := callTool(t, cs, "similar", map[string]any{"path": "a.md"})
		var out similarOutput
		mustSucceed(t, res, &out)
		if len(out.Notes) != 2 || out.Notes[0].Citation != "b.md:L3-L9" || out.Notes[0].Why != "terms+links" || out.Notes[1].Citation != "c.md" {
			t.Errorf("similar %+v", out)
		}
		mustFail(t, callTool(t, cs, "similar", map[string]any{"path": "missing.md"}), "not indexed")
	})

	t.Run("backlinks", func(t *testing.T) {
		res := callTool(t, cs, "backlinks", map[string]any{"note": "Restic Backups", "vault": "notes"})
		var out graphOutput
		mustSucceed(t, res, &out)
		f.mu.Lock()
		req := f.graphs[len(f.graphs)-1]
		f.mu.Unlock()
		if req.Query != ipc.GraphBacklinks || req.Note != "Restic Backups" || req.Vault != "notes" {
			t.Errorf("daemon got %+v", req)
		}
		if out.Total != 2 || len(out.Links) != 2 || out.Links[0].Citation != "Backup plan.md:L7" || out.Links[0].Source != "Backup plan.md" {
			t.Errorf("backlinks %+v", out)
		}
		text := textOf(res)
		for _, s := range []string{`2 links to "Restic Backups":`, "- Backup plan.md:L7 (vault notes): links_to Restic Backups#Retention → ops/Restic Backups.md",
			"- 2024/2024-03-14.md:L3 (vault notes): embeds Restic Backups"} {
			if !strings.Contains(text, s) {
				t.Errorf("text content lacks %q:\n%s", s, text)
			}
		}
		mustFail(t, callTool(t, cs, "backlinks", map[string]any{"vault": "notes"}), "note")
	})

	t.Run("unresolved", func(t *testing.T) {
		res := callTool(t, cs, "unresolved", map[string]any{"vault": "work"})
		var out graphOutput
		mustSucceed(t, res, &out)
		f.mu.Lock()
		req := f.graphs[len(f.graphs)-1]
		f.mu.Unlock()
		if req.Query != ipc.GraphUnresolved || req.Vault != "work" {
			t.Errorf("daemon got %+v", req)
		}
		if out.Total != 1 || len(out.Links) != 1 || out.Links[0].Target != "Missing Note" || out.Links[0].Citation != "todo.md:L12" {
			t.Errorf("unresolved %+v", out)
		}
		if text := textOf(res); !strings.Contains(text, "1 link to notes that do not exist:\n- todo.md:L12 (vault work): links_to Missing Note") {
			t.Errorf("text content:\n%s", text)
		}
	})
}

// TestMCPDaemonUnreachable checks that with no daemon every tool fails
// with a tool error saying how to start ragd, and the server keeps going.
func TestMCPDaemonUnreachable(t *testing.T) {
	dir := isolate(t)
	cs := startMCP(t, filepath.Join(dir, "nobody.sock"))
	for range 2 {
		for _, call := range []struct {
			name string
			args map[string]any
		}{
			{"search", map[string]any{"query": "restic"}},
			{"get_document", map[string]any{"path": "notes.md"}},
			{"status", nil},
			{"backlinks", map[string]any{"note": "x"}},
			{"unresolved", nil},
		} {
			res := callTool(t, cs, call.name, call.args)
			mustFail(t, res, "ragd is not running")
			if text := textOf(res); !strings.Contains(text, "start it with `ragd`") {
				t.Errorf("%s: %q does not say how to start ragd", call.name, text)
			}
		}
	}
	if _, err := cs.ListTools(t.Context(), nil); err != nil {
		t.Errorf("ListTools after failed calls: %v", err)
	}
}
