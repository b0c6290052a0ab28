package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/version"
	"github.com/ragd/ragd/ipc"
)

func TestRunUsageErrors(t *testing.T) {
	isolate(t)
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no args", nil, "usage: ragctl"},
		{"only global flags", []string{"-socket", "/x.sock"}, "usage: ragctl"},
		{"unknown global flag", []string{"-nope"}, "flag provided but not defined: -nope"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"search without query", []string{"search"}, "usage: ragctl search"},
		{"search with blank query", []string{"search", " ", "\t"}, "usage: ragctl search"},
		{"search with only flags", []string{"search", "-k", "3", "--json"}, "usage: ragctl search"},
		{"search bad k", []string{"search", "-k", "many", "x"}, `invalid value "many" for flag -k`},
		{"search k over max", []string{"search", "-k", "5000", "x"}, `invalid value "5000" for flag -k: must be from 1 to 1000`},
		{"search k zero", []string{"search", "x", "-k", "0"}, `invalid value "0" for flag -k: must be from 1 to 1000`},
		{"search unknown mode", []string{"search", "-mode", "semantic", "x"}, `invalid value "semantic" for flag -mode: want one of hybrid, lexical, vector`},
		{"context k zero", []string{"context", "-k", "0", "x"}, `invalid value "0" for flag -k`},
		{"context budget", []string{"context", "-budget", "0", "x"}, `invalid value "0" for flag -budget`},
		{"similar k", []string{"similar", "-k", "5000", "x"}, `invalid value "5000" for flag -k`},
		{"graph hops", []string{"graph", "neighbors", "x", "-hops", "9"}, `invalid value "9" for flag -hops`},
		{"graph unknown query", []string{"graph", "friends"}, `unknown query "friends"`},
		{"graph backlinks without note", []string{"graph", "backlinks"}, "backlinks needs a note"},
		{"trailing unknown flag", []string{"search", "espresso", "-top", "3"}, "put it after --"},
		{"version argument", []string{"version", "x"}, "usage: ragctl version"},
		{"search unknown flag", []string{"search", "--top", "3", "x"}, "flag provided but not defined: -top"},
		{"reindex two paths", []string{"reindex", "a", "b"}, "usage: ragctl reindex"},
		{"status unknown flag", []string{"status", "-verbose"}, "flag provided but not defined"},
		{"status watch and json", []string{"status", "-watch", "-json"}, "usage: ragctl status"},
		{"runs zero", []string{"runs", "-n", "0"}, `invalid value "0" for flag -n`},
		{"runs over max", []string{"runs", "-n", "1001"}, `invalid value "1001" for flag -n`},
		{"runs bad n", []string{"runs", "-n", "all"}, `invalid value "all" for flag -n`},
		{"runs argument", []string{"runs", "notes"}, "usage: ragctl runs"},
		{"events argument", []string{"events", "notes"}, "usage: ragctl events"},
		{"events unknown flag", []string{"events", "-follow"}, "flag provided but not defined: -follow"},
		{"eval without source", []string{"eval"}, "usage: ragctl eval"},
		{"eval with both sources", []string{"eval", "-beir", "d", "-vault", "v", "-qrels", "q"}, "usage: ragctl eval"},
		{"eval vault without qrels", []string{"eval", "-vault", "v"}, "usage: ragctl eval"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("stderr %q lacks %q", stderr, tt.wantErr)
			}
			if stdout != "" {
				t.Errorf("usage error wrote to stdout: %q", stdout)
			}
		})
	}
}

func TestRunHelpAndVersion(t *testing.T) {
	isolate(t)
	// Help asked for is not an error: stdout, exit 0.
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		code, stdout, stderr := runCmd(t, args...)
		if code != exitOK || !strings.Contains(stdout, "commands:") || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	for _, args := range [][]string{{"help", "search"}, {"search", "-h"}, {"search", "x", "--help"}} {
		code, stdout, stderr := runCmd(t, args...)
		if code != exitOK || !strings.HasPrefix(stdout, "usage: ragctl search [-explain] [-json] [-k N]") ||
			!strings.Contains(stdout, "number of results, N from 1 to 1000 (default 10)") || stderr != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
	want := fmt.Sprintf("ragctl %s (protocol %d)\n", version.String(), ipc.ProtocolVersion)
	for _, args := range [][]string{{"--version"}, {"-version"}} {
		if code, stdout, _ := runCmd(t, args...); code != exitOK || stdout != want {
			t.Errorf("%q: exit %d, %q", args, code, stdout)
		}
	}
	// version also asks the daemon, which is not running here.
	code, stdout, _ := runCmd(t, "version")
	if code != exitOK || !strings.HasPrefix(stdout, want+"ragd: not reachable on ") {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}

func TestRunUnreachable(t *testing.T) {
	dir := isolate(t)
	sock := filepath.Join(dir, "nobody.sock")
	tests := [][]string{
		{"-socket", sock, "search", "restic"},
		{"search", "-socket", sock, "--json", "restic"},
		{"-socket", sock, "status"},
		{"-socket", sock, "reindex", "-wait"},
		{"-socket", sock, "status", "-watch"},
		{"-socket", sock, "runs"},
		{"runs", "-socket", sock, "-n", "5", "-json"},
		{"-socket", sock, "events"},
		{"-socket", sock, "events", "-json"},
		// Without -socket, $RAGD_SOCKET is used (nothing listens there).
		{"status", "--json"},
	}
	// On a terminal too: live views draw nothing before the daemon answers.
	for _, tty := range []bool{false, true} {
		for _, args := range tests {
			code, stdout, stderr := runCmdUntil(t, tty, nil, args...)
			if code != exitUnreachable {
				t.Errorf("%q (tty %v): exit %d, want %d", args, tty, code, exitUnreachable)
			}
			if !strings.Contains(stderr, "ragd is not running") || !strings.Contains(stderr, "start it with") {
				t.Errorf("%q (tty %v): stderr %q does not say ragd is not running", args, tty, stderr)
			}
			if stdout != "" {
				t.Errorf("%q (tty %v): stdout %q", args, tty, stdout)
			}
		}
	}
}

func TestRunSearch(t *testing.T) {
	isolate(t)
	f := &fakeBackend{results: sampleResults()}
	sock := serveFake(t, f)

	code, stdout, stderr := runCmd(t, "-socket", sock, "search", "-k", "4", "-vault", "notes,journal", "-path", "2024/", "restic", "retention")
	if code != exitOK {
		t.Fatalf("exit %d, want 0; stderr %q", code, stderr)
	}
	want := ipc.SearchRequest{Query: "restic retention", K: 4, Vaults: []string{"notes", "journal"}, PathPrefix: "2024/"}
	got := f.lastSearch()
	if got.Query != want.Query || got.K != want.K || got.PathPrefix != want.PathPrefix || strings.Join(got.Vaults, ",") != "notes,journal" {
		t.Errorf("daemon got %+v, want %+v", got, want)
	}
	var b bytes.Buffer
	printResults(&b, &ipc.SearchResponse{Query: want.Query, Results: sampleResults()})
	if stdout != b.String() {
		t.Errorf("stdout differs from printResults:\n%s", stdout)
	}

	// The socket can also be given after the subcommand.
	if code, _, stderr := runCmd(t, "search", "-socket", sock, "restic"); code != exitOK {
		t.Errorf("search -socket: exit %d, stderr %q", code, stderr)
	}
	if got := f.lastSearch(); got.K != ipc.DefaultK || got.Vaults != nil {
		t.Errorf("defaults: daemon got %+v", got)
	}

	// A daemon error is exit 1 with its message.
	code, _, stderr = runCmd(t, "-socket", sock, "search", "-vault", "nope", "x")
	if code != exitFail || !strings.Contains(stderr, `no vault named "nope"`) {
		t.Errorf("unknown vault: exit %d, stderr %q", code, stderr)
	}
	// Flags after the query are flags, not words of the query.
	if code, _, stderr := runCmd(t, "-socket", sock, "search", "espresso", "-k", "2", "--json"); code != exitOK {
		t.Errorf("trailing flags: exit %d, stderr %q", code, stderr)
	}
	if got := f.lastSearch(); got.Query != "espresso" || got.K != 2 {
		t.Errorf("trailing flags: daemon got %+v", got)
	}
	// After --, everything is the query.
	if code, _, stderr := runCmd(t, "-socket", sock, "search", "espresso", "--", "-k", "2"); code != exitOK {
		t.Errorf("--: exit %d, stderr %q", code, stderr)
	}
	if got := f.lastSearch(); got.Query != "espresso -k 2" || got.K != ipc.DefaultK {
		t.Errorf("--: daemon got %+v", got)
	}
}

func TestRunSearchNoHits(t *testing.T) {
	isolate(t)
	sock := serveFake(t, &fakeBackend{})
	code, stdout, stderr := runCmd(t, "-socket", sock, "search", "zebra")
	if code != exitFail {
		t.Errorf("exit %d, want %d", code, exitFail)
	}
	if stdout != "no results for \"zebra\"\n" || stderr != "" {
		t.Errorf("stdout %q, stderr %q", stdout, stderr)
	}

	code, stdout, _ = runCmd(t, "-socket", sock, "search", "--json", "zebra")
	if code != exitFail {
		t.Errorf("--json: exit %d, want %d", code, exitFail)
	}
	var resp struct {
		Results []json.RawMessage `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &resp); err != nil || resp.Results == nil || len(resp.Results) != 0 {
		t.Errorf("--json with no hits: %q (%v): want an empty results array", stdout, err)
	}
}

func TestRunSearchJSON(t *testing.T) {
	isolate(t)
	sock := serveFake(t, &fakeBackend{results: sampleResults()})
	code, stdout, stderr := runCmd(t, "-socket", sock, "search", "--json", "restic")
	if code != exitOK {
		t.Fatalf("exit %d; stderr %q", code, stderr)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, stdout)
	}
	if out["query"] != "restic" {
		t.Errorf("query = %v", out["query"])
	}
	results, ok := out["results"].([]any)
	if !ok || len(results) != len(sampleResults()) {
		t.Fatalf("results = %v", out["results"])
	}
	first, _ := results[0].(map[string]any)
	for _, key := range []string{"vault", "path", "line_start", "line_end", "heading", "score", "text"} {
		if _, ok := first[key]; !ok {
			t.Errorf("result lacks %q: %v", key, first)
		}
	}
	if first["vault"] != "notes" || first["path"] != "Restic Backups.md" || first["line_start"] != 12.0 ||
		first["line_end"] != 20.0 || first["heading"] != "Restic Backups > Retention" || first["score"] != 7.12345 {
		t.Errorf("first result = %v", first)
	}
}

func TestRunStatus(t *testing.T) {
	isolate(t)
	sock := serveFake(t, &fakeBackend{})

	code, stdout, stderr := runCmd(t, "-socket", sock, "status", "--json")
	if code != exitOK {
		t.Fatalf("exit %d; stderr %q", code, stderr)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("status --json is not JSON: %v\n%s", err, stdout)
	}
	if out["state"] != ipc.StateIdle {
		t.Errorf("state = %v", out["state"])
	}
	vaults, ok := out["vaults"].([]any)
	if !ok || len(vaults) != 3 {
		t.Fatalf("vaults = %v", out["vaults"])
	}
	for _, v := range vaults {
		m, _ := v.(map[string]any)
		for _, key := range []string{"name", "path", "documents", "chunks", "failed"} {
			if _, ok := m[key]; !ok {
				t.Errorf("vault lacks %q: %v", key, m)
			}
		}
	}
	if m := vaults[0].(map[string]any); m["name"] != "notes" || m["documents"] != 1234.0 || m["chunks"] != 56789.0 || m["failed"] != 3.0 {
		t.Errorf("first vault = %v", m)
	}

	code, stdout, _ = runCmd(t, "-socket", sock, "status")
	if code != exitOK || !strings.HasPrefix(stdout, fmt.Sprintf("ragd v0.1.0, protocol %d, pid 4242, up ", ipc.ProtocolVersion)) || !strings.Contains(stdout, "VAULT") {
		t.Errorf("status: exit %d\n%s", code, stdout)
	}
}

func TestRunReindex(t *testing.T) {
	isolate(t)
	f := &fakeBackend{}
	sock := serveFake(t, f)

	code, stdout, _ := runCmd(t, "-socket", sock, "reindex")
	if code != exitOK || stdout != "reindex queued; `ragctl status` shows progress\n" {
		t.Errorf("reindex: exit %d, %q", code, stdout)
	}
	code, stdout, _ = runCmd(t, "-socket", sock, "reindex", "-wait", "-vault", "notes", "ops/")
	if code != exitOK || stdout != "notes: 3 indexed, 10 unchanged, 0 removed, 0 failed\n" {
		t.Errorf("reindex -wait: exit %d, %q", code, stdout)
	}

	f.mu.Lock()
	f.reindex = &ipc.ReindexResponse{Done: true, Vaults: []ipc.ReindexResult{{Vault: "usb", Error: "vault root is missing"}}}
	f.mu.Unlock()
	code, stdout, _ = runCmd(t, "-socket", sock, "reindex", "-wait")
	if code != exitFail || !strings.Contains(stdout, "error: vault root is missing") {
		t.Errorf("reindex with a vault error: exit %d, %q", code, stdout)
	}
}

func TestSocketResolution(t *testing.T) {
	dir := isolate(t)
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(dir, "runtime"))
	defaultSock := filepath.Join(dir, "runtime", "ragd", "ragd.sock")
	cfgSock := filepath.Join(dir, "cfg.sock")
	vault := filepath.Join(dir, "vault")
	if err := os.Mkdir(vault, 0o755); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.toml")
	if err := os.WriteFile(good, []byte("[daemon]\nsocket = \""+cfgSock+"\"\n\n[[vault]]\nname = \"notes\"\npath = \""+vault+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "broken.toml")
	if err := os.WriteFile(broken, []byte("[daemon\nsocket = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name              string
		flag, env, config string
		want, wantWarning string
	}{
		{name: "flag wins", flag: "/flag.sock", env: "/env.sock", config: good, want: "/flag.sock"},
		{name: "environment", env: "/env.sock", config: good, want: "/env.sock"},
		{name: "configuration file", config: good, want: cfgSock},
		{name: "no configuration file", config: filepath.Join(dir, "missing.toml"), want: defaultSock},
		{name: "broken configuration file", config: broken, want: defaultSock, wantWarning: "ragctl: warning: cannot use the socket named in " + broken},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("RAGD_SOCKET", tt.env)
			t.Setenv("RAGD_CONFIG", tt.config)
			var stderr bytes.Buffer
			e := &env{stdout: io.Discard, stderr: &stderr, socket: tt.flag}
			if got := e.socketPath(); got != tt.want {
				t.Errorf("socketPath = %q, want %q", got, tt.want)
			}
			if tt.wantWarning == "" && stderr.Len() > 0 || !strings.Contains(stderr.String(), tt.wantWarning) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.wantWarning)
			}
		})
	}

	// End to end: the socket named in the configuration file is used.
	t.Setenv("RAGD_SOCKET", "")
	t.Setenv("RAGD_CONFIG", good)
	sock := serveFake(t, &fakeBackend{})
	if err := os.WriteFile(good, []byte("[daemon]\nsocket = \""+sock+"\"\n\n[[vault]]\nname = \"notes\"\npath = \""+vault+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCmd(t, "status"); code != exitOK {
		t.Errorf("status via the configured socket: exit %d, stderr %q", code, stderr)
	}
}
