package main

// End-to-end tests of plugin failures through the real daemon: an
// embedder whose server is down, an extractor that exits at start-up, one
// that hangs (this test binary serving a Go extractor, testplugin_test.go),
// and the `ragd plugin` subcommand run by hand.

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

// closedPort returns a local TCP port nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	return port
}

// pluginNamed returns the status of one plugin from /v1/plugins.
func (d *daemonProc) pluginNamed(t *testing.T, name string) ipc.PluginStatus {
	t.Helper()
	resp, err := d.Client.Plugins(context.Background())
	if err != nil {
		t.Fatalf("plugins: %v", err)
	}
	for _, p := range resp.Plugins {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("plugin %q not listed: %+v", name, resp.Plugins)
	return ipc.PluginStatus{}
}

// failedReasons maps the failed files of the test vault to their reasons.
func (d *daemonProc) failedReasons(t *testing.T) map[string]string {
	t.Helper()
	st := d.status(t)
	out := map[string]string{}
	for _, v := range st.Vaults {
		if v.Name != "notes" {
			continue
		}
		for _, f := range v.FailedFiles {
			out[f.Path] = f.Error
		}
	}
	return out
}

// An embedder whose server is unreachable degrades the vector channel:
// searches answer from BM25, status says why, the daemon keeps running.
func TestDegradedEmbedderDown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{
		"garden.md": "# Garden\n\nZucchini need deep watering twice a week.\n",
		"bread.md":  "# Bread\n\nZucchini bread with walnuts.\n",
	})
	e.writeConfigTail("", "", fmt.Sprintf(`
[[plugin]]
name = "emb"
kind = "embedder"
builtin = "ollama"
[plugin.options]
model = "x"
base_url = "http://127.0.0.1:%d"
dimensions = 8
max_retries = 0
timeout = "1s"

[search]
embedder = "emb"
`, closedPort(t)))
	// Never idle: every chunk waits for a vector it cannot get.
	d := e.ragd("run", "-config", e.Config)
	d.WaitStatus(t, "the start-up pass", func(st *ipc.StatusResponse) bool {
		return ragdtest.Reconciled(st) && st.State == ipc.StateEmbedding
	})
	ctx := context.Background()

	for _, mode := range []string{"", ipc.ModeHybrid} {
		resp, err := d.Client.Search(ctx, ipc.SearchRequest{Query: "zucchini watering", Mode: mode})
		if err != nil {
			t.Fatalf("mode %q: search failed instead of degrading: %v", mode, err)
		}
		if !resp.Grounded || len(resp.Results) == 0 || resp.Results[0].Path != "garden.md" {
			t.Errorf("mode %q: not answered from BM25: %+v", mode, resp)
		}
		if !slices.Equal(resp.Degraded, []string{"vector"}) {
			t.Errorf("mode %q: degraded = %v, want [vector]", mode, resp.Degraded)
		}
	}
	// Vector mode has nothing to answer with, but says why instead of failing.
	if resp, err := d.Client.Search(ctx, ipc.SearchRequest{Query: "zucchini watering", Mode: ipc.ModeVector}); err != nil {
		t.Errorf("vector mode failed: %v", err)
	} else if !slices.Contains(resp.Degraded, "vector") {
		t.Errorf("vector mode: degraded = %v", resp.Degraded)
	}
	if resp, err := d.Client.Context(ctx, ipc.ContextRequest{Query: "zucchini bread walnuts"}); err != nil || !resp.Grounded ||
		!slices.Contains(resp.Degraded, "vector") || !strings.Contains(resp.Context, "bread.md") {
		t.Errorf("context: %+v, %v", resp, err)
	}

	// The embedding worker tried the documents and reports the failure.
	var st *ipc.StatusResponse
	d.Poll(t, func() string {
		if st == nil {
			return "vector.last_error in status"
		}
		return fmt.Sprintf("vector.last_error in status (last %+v)", st.Vector)
	}, func() bool {
		st = d.status(t)
		return st.Vector != nil && st.Vector.LastError != ""
	})
	t.Logf("vector.last_error %q; semantic %q", st.Vector.LastError, st.Semantic)
	if st.Vector.Embedder != "emb" || st.Vector.Vectors != 0 || st.Vector.Pending == 0 {
		t.Errorf("vector status = %+v", *st.Vector)
	}
	if !strings.Contains(st.Semantic, "embedding paused") || !strings.Contains(st.Semantic, st.Vector.LastError) {
		t.Errorf("semantic = %q, want it to explain the pause (%q)", st.Semantic, st.Vector.LastError)
	}
	if le := strings.ToLower(st.Vector.LastError); !strings.Contains(le, "emb") || !(strings.Contains(le, "refused") || strings.Contains(le, "connect")) {
		t.Errorf("last_error %q does not explain that the server is unreachable", st.Vector.LastError)
	}
	if p := d.pluginNamed(t, "emb"); p.State != ipc.PluginRunning {
		t.Errorf("the embedder plugin itself should run (only its server is down): %+v", p)
	}

	// Still serving, and a change is still indexed (lexically).
	e.write("notes.md", "# Notes\n\nKohlrabi grows fast.\n")
	if _, err := d.Client.Reindex(ctx, ipc.ReindexRequest{Wait: true}); err != nil {
		t.Fatal(err)
	}
	if got := paths(d.search(t, "kohlrabi")); got != "notes.md" {
		t.Errorf("after reindex: %q", got)
	}
	d.Stop(t)
}

// An extractor that exits at start-up is reported failed with its exit
// status and stderr; its files are failed with a reason; the rest serves.
func TestPluginExitsAtStartup(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{
		"a.md":     "# A\n\nParsnips and turnips.\n",
		"todo.org": "* TODO plant parsnips\n",
	})
	e.writeConfigTail("", `include = ["**/*.md", "**/*.org"]`, `
[[plugin]]
name = "org"
kind = "extractor"
command = "/bin/sh"
args = ["-c", "echo boom >&2; exit 3"]
extensions = [".org"]
`)
	d := e.start()
	var p ipc.PluginStatus
	d.Poll(t, func() string { return fmt.Sprintf("the org plugin to be failed (last %+v)", p) }, func() bool {
		p = d.pluginNamed(t, "org")
		return p.State == ipc.PluginFailed && p.LastError != ""
	})
	if !strings.Contains(p.LastError, "exit status 3") || !strings.Contains(p.LastError, "boom") {
		t.Errorf("last_error %q should give the exit status and the stderr", p.LastError)
	}
	if p.Kind != "extractor" || p.Builtin || p.PID != 0 {
		t.Errorf("plugin status = %+v", p)
	}
	reasons := d.failedReasons(t)
	t.Logf("plugin last_error %q; failed files %q", p.LastError, reasons)
	if r := reasons["todo.org"]; !strings.Contains(r, "org") || !(strings.Contains(r, "unavailable") || strings.Contains(r, "exit")) {
		t.Errorf("todo.org: reason %q; failed files %v", r, reasons)
	}
	if len(reasons) != 1 {
		t.Errorf("failed files = %v, want only todo.org", reasons)
	}
	if got := paths(d.search(t, "parsnips")); got != "a.md" {
		t.Errorf("search while a plugin is down: %q", got)
	}
	if st := d.status(t); st.Vaults[0].Documents != 1 {
		t.Errorf("status vaults = %+v", st.Vaults)
	}
	d.Stop(t)
}

// timeoutBug says what went wrong when a file's failure reason shows that
// a call past the plugin's timeout came back as a plain gRPC
// DeadlineExceeded error instead of host.ErrTimeout.
const timeoutBug = "BUG: a call that ran past the plugin's timeout was not recognised as a timeout " +
	"(plugins/host/call.go, proc.attempt: timedOut reads cctx.Err() as soon as the call returns, but gRPC already " +
	"returned DeadlineExceeded when the plugin side reset the stream at the propagated deadline, before the " +
	"context's own timer marked cctx done): the hung process is neither killed nor restarted, and the failure " +
	"is not wrapped in ingest.ErrTransient, so an unchanged file is never retried"

// checkTimeoutReason checks that a file failed because its extraction
// timed out, and reports whether it did.
func checkTimeoutReason(t *testing.T, file, reason string) bool {
	t.Helper()
	t.Logf("%s failed: %q", file, reason)
	switch {
	case strings.Contains(reason, "timed out") && strings.Contains(reason, "1s"):
		return true
	case strings.Contains(reason, "DeadlineExceeded"):
		t.Errorf("%s: %s: reason %q", timeoutBug, file, reason)
	default:
		t.Errorf("%s: reason %q, want it to mention the 1s timeout", file, reason)
	}
	return false
}

// A hanging extractor is killed at its timeout and restarted; the file is
// failed with the reason and retried on a later pass, whether it changed
// or not (a timeout is a transient failure).
func TestPluginHangingExtractorIsKilledAndRetried(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, map[string]string{
		"a.md":       "# A\n\nRhubarb crumble.\n",
		"stuck.hang": "HANG: quince jelly\n",
		"fine.hang":  "medlar cheese\n",
	})
	markers := t.TempDir()
	e.writeConfigTail("rescan_interval = 0", "watch = false\ninclude = [\"**/*.md\", \"**/*.hang\"]", fmt.Sprintf(`
[[plugin]]
name = "hang"
kind = "extractor"
command = %q
env = { %s = %q, %s = %q }
timeout = "1s"
extensions = [".hang"]
`, exe, envTestPlugin, hangExtractor, envTestPluginDir, markers))
	d := e.start()
	ctx := context.Background()

	reasons := d.failedReasons(t)
	killed := checkTimeoutReason(t, "stuck.hang", reasons["stuck.hang"])
	if len(reasons) != 1 {
		t.Errorf("failed files = %v, want only stuck.hang", reasons)
	}
	if got := paths(d.search(t, "medlar")); got != "fine.hang" {
		t.Errorf("a file of the same plugin that did not hang: %q", got)
	}
	if killed {
		var p ipc.PluginStatus
		d.Poll(t, func() string { return fmt.Sprintf("the plugin to be restarted and running (last %+v)", p) }, func() bool {
			p = d.pluginNamed(t, "hang")
			return p.Restarts >= 1 && p.State == ipc.PluginRunning
		})
		if !strings.Contains(p.LastError, "timeout") || p.Errors < 1 {
			t.Errorf("plugin status after the kill: %+v", p)
		}
	}

	// The file no longer hangs the plugin: the next pass indexes it.
	e.write("stuck.hang", "quince jelly, unstuck\n")
	rr, err := d.Client.Reindex(ctx, ipc.ReindexRequest{Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := rr.Vaults[0]; r.Indexed != 1 || r.Failed != 0 {
		t.Errorf("reindex after the fix = %+v", r)
	}
	if got := paths(d.search(t, "quince")); got != "stuck.hang" {
		t.Errorf("fixed file: %q", got)
	}
	if reasons := d.failedReasons(t); len(reasons) != 0 {
		t.Errorf("failed files after the fix: %v", reasons)
	}

	// A transient failure: the plugin hangs on the first call only. The
	// file fails, then the next pass retries it with unchanged bytes.
	e.write("flaky.hang", "FLAKY: loquat chutney\n")
	rr, err = d.Client.Reindex(ctx, ipc.ReindexRequest{Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := rr.Vaults[0]; r.Failed != 1 {
		t.Errorf("first pass over the flaky file = %+v", r)
	}
	transient := checkTimeoutReason(t, "flaky.hang", d.failedReasons(t)["flaky.hang"])
	if got := paths(d.search(t, "loquat")); got != "" {
		t.Errorf("failed file found: %q", got)
	}
	rr, err = d.Client.Reindex(ctx, ipc.ReindexRequest{Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	bug := ""
	if !transient {
		bug = "(a consequence of the BUG above) "
	}
	if r := rr.Vaults[0]; r.Indexed != 1 || r.Failed != 0 {
		t.Errorf("%sretry of the unchanged file = %+v, want it indexed", bug, r)
	}
	if got := paths(d.search(t, "loquat")); got != "flaky.hang" {
		t.Errorf("%sretried file: %q", bug, got)
	}
	if reasons := d.failedReasons(t); len(reasons) != 0 {
		t.Errorf("%sfailed files after the retry: %v", bug, reasons)
	}
	if p := d.pluginNamed(t, "hang"); killed && transient && p.Restarts < 2 {
		t.Errorf("restarts = %d after two timeouts", p.Restarts)
	}
	d.Stop(t)
}

// `ragd plugin NAME` is for the daemon: an unknown name lists the
// built-ins, and a built-in started by hand refuses to serve.
func TestPluginSubcommand(t *testing.T) {
	t.Parallel()
	ragd := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(os.Args[0], args...)
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "RAGD_PLUGIN=") && !strings.HasPrefix(kv, envTestPlugin+"=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "RAGD_TEST_MAIN=1")
		cmd.Stdin = strings.NewReader("")
		done := make(chan struct{})
		var out []byte
		var err error
		go func() { out, err = cmd.CombinedOutput(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Fatalf("ragd %s did not exit:\n%s", strings.Join(args, " "), out)
		}
		code := 0
		if err != nil {
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatalf("ragd %s: %v", strings.Join(args, " "), err)
			}
			code = ee.ExitCode()
		}
		return string(out), code
	}
	builtins := []string{"pdf", "docx", "html", "uselite", "ollama", "openai", "heuristic"}

	out, code := ragd("plugin", "nope")
	if code == 0 || !strings.Contains(out, `"nope"`) {
		t.Errorf("ragd plugin nope: exit %d:\n%s", code, out)
	}
	for _, b := range builtins {
		if !strings.Contains(out, b) {
			t.Errorf("ragd plugin nope does not list the built-in %q:\n%s", b, out)
		}
	}
	out, code = ragd("plugin")
	if code != 2 || !strings.Contains(out, "usage") || !strings.Contains(out, "pdf") {
		t.Errorf("ragd plugin: exit %d:\n%s", code, out)
	}
	out, code = ragd("plugin", "pdf")
	if code == 0 || !strings.Contains(out, "ragd plugin pdf") || !strings.Contains(out, "not by hand") {
		t.Errorf("ragd plugin pdf by hand: exit %d:\n%s", code, out)
	}
	if strings.Contains(out, "plugin_addr") || strings.Contains(out, "|grpc") {
		t.Errorf("ragd plugin pdf by hand printed a handshake:\n%s", out)
	}
}
