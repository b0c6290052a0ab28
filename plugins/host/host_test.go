//go:build unix

package host

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/internal/testplugin"
)

func embedder(t *testing.T, m *Manager, name string) plugins.Embedder {
	t.Helper()
	h, err := m.Embedder(name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func checkVectors(t *testing.T, texts []string, vecs [][]float32) {
	t.Helper()
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, text := range texts {
		if !slices.Equal(vecs[i], testplugin.Vector(text)) {
			t.Fatalf("vector %d is wrong", i)
		}
	}
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "text " + strconv.Itoa(i)
	}
	return out
}

func TestStartAndStatus(t *testing.T) {
	t.Parallel()
	m, _ := startManager(t,
		testSpec("emb", plugins.KindEmbedder, nil),
		testSpec("ext", plugins.KindExtractor, nil),
		testSpec("rr", plugins.KindReranker, nil))
	for _, st := range m.Status() {
		if st.State != ipc.PluginRunning || st.PID == 0 || st.LastError != "" {
			t.Errorf("%s: %+v", st.Name, st)
		}
	}
	if got := statusOf(t, m, "emb").Info["dimensions"]; got != strconv.Itoa(testplugin.Dims) {
		t.Errorf("info dimensions = %q", got)
	}
	if got := statusOf(t, m, "ext").Info["extensions"]; got != ".fake,.txt" {
		t.Errorf("info extensions = %q", got)
	}
	if got := m.Names(plugins.KindExtractor); !slices.Equal(got, []string{"ext"}) {
		t.Errorf("Names(extractor) = %v", got)
	}
	if _, err := m.Embedder("ext"); !errors.Is(err, ErrUnknownPlugin) {
		t.Errorf("Embedder(an extractor) = %v, want ErrUnknownPlugin", err)
	}
	ctx := context.Background()
	in := texts(3)
	vecs, err := embedder(t, m, "emb").Embed(ctx, plugins.InputDocument, in)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, in, vecs)
	q, err := embedder(t, m, "emb").Embed(ctx, plugins.InputQuery, in[:1])
	if err != nil || !slices.Equal(q[0], testplugin.Vector("q: "+in[0])) {
		t.Fatalf("query embedding: %v", err)
	}
	x, _ := m.Extractor("ext")
	ex, err := x.Extract(ctx, plugins.ExtractRequest{Path: "a.txt", Data: []byte("Title line\nAlice was here\n")})
	if err != nil || ex.Title != "Title line" || len(ex.Entities) != 1 || ex.Entities[0].Line != 2 || ex.Metadata["path"] != "a.txt" {
		t.Fatalf("Extract = %+v, %v", ex, err)
	}
	r, _ := m.Reranker("rr")
	scores, err := r.Rerank(ctx, "solar panels", []plugins.Candidate{{Text: "solar panels"}, {Text: "bread", Modified: time.Now()}})
	if err != nil || !slices.Equal(scores, []float64{1, 0}) {
		t.Fatalf("Rerank = %v, %v", scores, err)
	}
}

// A plugin SIGKILLed while a slow batch is in flight is restarted and the
// batch completes on the new process.
func TestKillMidBatch(t *testing.T) {
	t.Parallel()
	m, logs := startManager(t, testSpec("emb", plugins.KindEmbedder, plugins.Options{"delay_ms": 700}))
	h := embedder(t, m, "emb")
	before := statusOf(t, m, "emb")
	in := texts(64)
	type result struct {
		vecs [][]float32
		err  error
	}
	done := make(chan result, 1)
	go func() {
		v, err := h.Embed(context.Background(), plugins.InputDocument, in)
		done <- result{v, err}
	}()
	// Kill once the call is in the plugin, sleeping.
	if !waitFor(func() bool { return logs.find("delaying the call") != nil }) {
		t.Fatal("the call never reached the plugin")
	}
	if err := sigkill(before.PID); err != nil {
		t.Fatal(err)
	}
	res := <-done
	if res.err != nil {
		t.Fatalf("batch failed: %v", res.err)
	}
	checkVectors(t, in, res.vecs)
	after := statusOf(t, m, "emb")
	t.Logf("after the kill: pid %d → %d, last error %q", before.PID, after.PID, after.LastError)
	if after.State != ipc.PluginRunning || after.Restarts != 1 || after.PID == before.PID || after.PID == 0 {
		t.Errorf("after the kill: %+v (before %+v)", after, before)
	}
	if !strings.Contains(after.LastError, "signal: killed") && !strings.Contains(after.LastError, "connection lost") {
		t.Errorf("LastError = %q", after.LastError)
	}
	if after.Calls != 1 || after.Errors != 0 {
		t.Errorf("calls %d errors %d, want 1 and 0", after.Calls, after.Errors)
	}
	if logs.find("plugin died during a call") == nil {
		t.Error("the retry was not logged")
	}
}

// A plugin that hangs past its timeout is killed; the call fails with
// ErrTimeout and the next call works on the restarted process.
func TestTimeoutKillsAndRestarts(t *testing.T) {
	t.Parallel()
	spec := testSpec("emb", plugins.KindEmbedder, nil)
	spec.Timeout = 400 * time.Millisecond
	m, _ := startManager(t, spec)
	h := embedder(t, m, "emb")
	before := statusOf(t, m, "emb")
	// The hang never returns: an answer at all is the timeout at work.
	_, err := h.Embed(context.Background(), plugins.InputDocument, []string{"a", testplugin.Hang})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	t.Logf("timeout error: %v", err)
	if !waitFor(func() bool { return !alive(before.PID) }) {
		t.Errorf("hung plugin %d still alive", before.PID)
	}
	in := texts(2)
	vecs, err := h.Embed(context.Background(), plugins.InputDocument, in)
	if err != nil {
		t.Fatalf("call after the timeout: %v", err)
	}
	checkVectors(t, in, vecs)
	after := statusOf(t, m, "emb")
	t.Logf("LastError %q", after.LastError)
	// A start is bounded by the call timeout too (400 ms), so on a loaded
	// machine a restart may itself time out and be retried.
	if after.Restarts < 1 || after.PID == before.PID || !strings.Contains(after.LastError, "timeout") {
		t.Errorf("after the timeout: %+v", after)
	}
	if after.Calls != 2 || after.Errors != 1 {
		t.Errorf("calls %d errors %d, want 2 and 1", after.Calls, after.Errors)
	}
}

// A plugin that exits at start-up is failed, with its stderr in LastError,
// and calls fail fast with ErrUnavailable.
func TestExitAtStartup(t *testing.T) {
	t.Parallel()
	spec := testSpec("emb", plugins.KindEmbedder, nil)
	spec.Env[testplugin.EnvFailStart] = "fatal: cannot load model weights.bin"
	m, _ := startManager(t, spec)
	st := statusOf(t, m, "emb")
	t.Logf("LastError: %s", st.LastError)
	if st.State != ipc.PluginFailed && st.State != ipc.PluginStarting {
		t.Errorf("state %q", st.State)
	}
	for _, want := range []string{"plugin exited during start-up", "exit status 3", "cannot load model weights.bin"} {
		if !strings.Contains(st.LastError, want) {
			t.Errorf("LastError %q lacks %q", st.LastError, want)
		}
	}
	start := time.Now()
	_, err := embedder(t, m, "emb").Embed(context.Background(), plugins.InputDocument, []string{"x"})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "cannot load model") {
		t.Errorf("Embed on a failed plugin: %v", err)
	}
	// Fails fast: it does not wait out the call's timeout.
	if el := time.Since(start); el >= spec.Timeout {
		t.Errorf("Embed on a failed plugin took %s, its whole timeout", el)
	}
	if !waitFor(func() bool { return statusOf(t, m, "emb").Restarts >= 2 }) {
		t.Errorf("no restarts with backoff: %+v", statusOf(t, m, "emb"))
	}
}

func TestBadCommandAndOptions(t *testing.T) {
	t.Parallel()
	bad := Spec{Name: "nope", Kind: plugins.KindReranker, Command: "/nonexistent/ragd-plugin"}
	opts := testSpec("opts", plugins.KindReranker, plugins.Options{"no_such_option": 1})
	m, _ := startManager(t, bad, opts)
	if st := statusOf(t, m, "nope"); st.State == ipc.PluginRunning || !strings.Contains(st.LastError, "start-up failed") {
		t.Errorf("bad command: %+v", st)
	}
	if st := statusOf(t, m, "opts"); st.State == ipc.PluginRunning || !strings.Contains(st.LastError, "no_such_option") {
		t.Errorf("bad option: %+v", st)
	}
	if _, err := New([]Spec{{Name: "x", Kind: "summarizer", Command: "x"}}, Config{}); err == nil {
		t.Error("unknown kind accepted")
	}
	if _, err := New([]Spec{{Name: "x", Kind: plugins.KindEmbedder, Command: "x"}, {Name: "x", Kind: plugins.KindEmbedder, Command: "y"}}, Config{}); err == nil {
		t.Error("duplicate name accepted")
	}
}

// Plugin log lines reach the host's slog logger tagged with the plugin
// name: hclog JSON from plugins.Logger, and plain stderr lines.
func TestLogsForwarded(t *testing.T) {
	t.Parallel()
	m, logs := startManager(t, testSpec("emb", plugins.KindEmbedder, plugins.Options{"delay_ms": 1}))
	if _, err := embedder(t, m, "emb").Embed(context.Background(), plugins.InputDocument, []string{testplugin.Log}); err != nil {
		t.Fatal(err)
	}
	check := func(msg, level string) {
		t.Helper()
		var r map[string]any
		waitFor(func() bool { r = logs.find(msg); return r != nil })
		if r == nil {
			t.Fatalf("no %q in the log:\n%v", msg, logs.records())
		}
		if r["plugin"] != "emb" || r["level"] != level {
			t.Errorf("%q logged as %v", msg, r)
		}
	}
	check("configured", "INFO")
	if r := logs.find("configured"); r["delay_ms"] != float64(1) {
		t.Errorf("attributes lost: %v", r)
	}
	check("asked to log", "WARN")
	check("plain line on stderr", "INFO")
	check("plugin running", "INFO")
}

func TestStatsAndConcurrency(t *testing.T) {
	t.Parallel()
	spec := testSpec("emb", plugins.KindEmbedder, plugins.Options{"delay_ms": 150, "max_batch": 5})
	spec.Concurrency = 1
	m, _ := startManager(t, spec)
	h := embedder(t, m, "emb")
	in := texts(12) // three calls of at most 5
	vecs, err := h.Embed(context.Background(), plugins.InputDocument, in)
	if err != nil {
		t.Fatal(err)
	}
	checkVectors(t, in, vecs)
	if _, err := h.Embed(context.Background(), plugins.InputDocument, []string{testplugin.Fail}); err == nil || !strings.Contains(err.Error(), "failing as asked") {
		t.Errorf("failing call: %v", err)
	}
	// A plugin's own UNAVAILABLE (its remote service is down) is an error,
	// not a dead process: no restart, no retry.
	if _, err := h.Embed(context.Background(), plugins.InputDocument, []string{testplugin.Unavailable}); err == nil || !strings.Contains(err.Error(), "remote service down") {
		t.Errorf("unavailable call: %v", err)
	}
	st := statusOf(t, m, "emb")
	if st.Calls != 5 || st.Errors != 2 || st.P50 < 100 || st.P95 < st.P50 || st.Restarts != 0 {
		t.Errorf("stats %+v", st)
	}
	// Concurrency 1: two calls of 150 ms take 300 ms.
	start := time.Now()
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := h.Embed(context.Background(), plugins.InputDocument, []string{"x"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if el := time.Since(start); el < 290*time.Millisecond {
		t.Errorf("two calls with concurrency 1 took %s", el)
	}
	// A caller's own deadline is not a plugin timeout: no restart.
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := h.Embed(ctx, plugins.InputDocument, []string{"x"}); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrTimeout) {
		t.Errorf("caller deadline: %v", err)
	}
	if st := statusOf(t, m, "emb"); st.Restarts != 0 || st.State != ipc.PluginRunning {
		t.Errorf("caller deadline restarted the plugin: %+v", st)
	}
}

func TestCrashOutsideCallRestarts(t *testing.T) {
	t.Parallel()
	m, _ := startManager(t, testSpec("ext", plugins.KindExtractor, nil))
	x, _ := m.Extractor("ext")
	before := statusOf(t, m, "ext")
	// The crash happens inside a call: the process exits with status 7;
	// the retry crashes it again, and the error says so.
	_, err := x.Extract(context.Background(), plugins.ExtractRequest{Path: "c.txt", Data: []byte(testplugin.Crash)})
	if err == nil {
		t.Fatal("crashing extract succeeded")
	}
	if !waitFor(func() bool { return statusOf(t, m, "ext").State == ipc.PluginRunning }) {
		t.Fatalf("not restarted: %+v", statusOf(t, m, "ext"))
	}
	st := statusOf(t, m, "ext")
	if st.PID == before.PID || st.Restarts < 1 {
		t.Errorf("after crashes: %+v", st)
	}
	if _, err := x.Extract(context.Background(), plugins.ExtractRequest{Path: "ok.txt", Data: []byte("fine")}); err != nil {
		t.Errorf("extract after the crashes: %v", err)
	}
}

func TestCloseStopsPlugins(t *testing.T) {
	t.Parallel()
	m, logs := startManager(t, testSpec("emb", plugins.KindEmbedder, nil), testSpec("rr", plugins.KindReranker, nil))
	var pids []int
	for _, st := range m.Status() {
		pids = append(pids, st.PID)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	// Each plugin shut down gracefully: it exited by itself, it was not
	// killed when the grace period ran out.
	stopped := 0
	for _, r := range logs.records() {
		if r["msg"] == "plugin stopped" {
			stopped++
			if r["exit"] != "exit status 0" {
				t.Errorf("plugin %v stopped with %v, want a graceful exit (exit status 0)", r["plugin"], r["exit"])
			}
		}
	}
	if stopped != len(pids) {
		t.Errorf("%d plugins logged their stop, want %d", stopped, len(pids))
	}
	for _, pid := range pids {
		if alive(pid) {
			t.Errorf("plugin %d alive after Close", pid)
		}
	}
	for _, st := range m.Status() {
		if st.State != ipc.PluginDisabled {
			t.Errorf("%s: state %s after Close", st.Name, st.State)
		}
	}
	if _, err := embedder(t, m, "emb").Embed(context.Background(), plugins.InputDocument, []string{"x"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Embed after Close: %v", err)
	}
}

// When the host dies by SIGKILL its plugins exit: by the parent-death
// signal on Linux, and by polling their parent pid everywhere.
func TestPluginsExitWhenHostKilled(t *testing.T) {
	t.Parallel()
	modes := []string{"no-pdeathsig"}
	if isLinux() {
		modes = append(modes, "pdeathsig")
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			exe, _ := os.Executable()
			cmd := exec.Command(exe)
			cmd.Env = append(os.Environ(), envHelperHost+"="+mode)
			cmd.Stderr = os.Stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			line, err := bufio.NewReader(out).ReadString('\n')
			if err != nil {
				t.Fatalf("helper host: %v", err)
			}
			f := strings.Fields(line)
			if len(f) != 3 || f[0] != "PID" || f[2] != ipc.PluginRunning {
				t.Fatalf("helper host said %q", line)
			}
			pid, _ := strconv.Atoi(f[1])
			if !alive(pid) {
				t.Fatalf("plugin %d not running", pid)
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			_ = cmd.Wait()
			start := time.Now()
			if !waitFor(func() bool { return !alive(pid) }) {
				_ = sigkill(pid)
				t.Fatalf("plugin %d still alive %s after its host was killed", pid, waitTimeout)
			}
			t.Logf("plugin exited %s after its host was SIGKILLed", time.Since(start).Round(time.Millisecond))
		})
	}
}

// A call made before Start (the daemon starts the manager in the
// background) waits for the plugin instead of failing.
func TestCallBeforeStartWaits(t *testing.T) {
	t.Parallel()
	m, err := New([]Spec{testSpec("emb", plugins.KindEmbedder, nil)}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	h := embedder(t, m, "emb")
	done := make(chan error, 1)
	go func() {
		_, err := h.Embed(context.Background(), plugins.InputDocument, []string{"early"})
		done <- err
	}()
	// Start only once the call waits for the plugin.
	p := m.procs["emb"]
	if !waitFor(func() bool { p.mu.Lock(); defer p.mu.Unlock(); return p.waiting == 1 }) {
		t.Fatal("the early call never waited for the plugin")
	}
	go m.Start(context.Background())
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitTimeout):
		t.Fatal("the early call never returned")
	}
}
