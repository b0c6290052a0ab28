package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/internal/testplugin"
)

// envHelperHost makes the test binary act as a ragd host that starts one
// plugin, prints its pid and waits to be killed.
const envHelperHost = "RAGD_TEST_HELPER_HOST"

func TestMain(m *testing.M) {
	if testplugin.Run() {
		return
	}
	if mode := os.Getenv(envHelperHost); mode != "" {
		helperHost(mode)
		return
	}
	os.Exit(m.Run())
}

func helperHost(mode string) {
	cfg := Config{noPdeathsig: mode == "no-pdeathsig"}
	m, err := New([]Spec{testSpec("emb", plugins.KindEmbedder, nil)}, cfg)
	if err != nil {
		fmt.Println("ERR", err)
		os.Exit(1)
	}
	_ = m.Start(context.Background())
	st := m.Status()[0]
	fmt.Printf("PID %d %s\n", st.PID, st.State)
	select {}
}

// testSpec runs this test binary as a plugin of kind.
func testSpec(name, kind string, opts plugins.Options) Spec {
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	return Spec{
		Name:    name,
		Kind:    kind,
		Command: exe,
		Env:     map[string]string{testplugin.EnvKind: kind},
		Options: opts,
		Timeout: 10 * time.Second,
	}
}

// logBuffer collects slog JSON records safely.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// records returns the logged records as maps.
func (b *logBuffer) records() []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(b.buf.String(), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

// find returns the first record whose message contains msg.
func (b *logBuffer) find(msg string) map[string]any {
	for _, r := range b.records() {
		if s, _ := r["msg"].(string); strings.Contains(s, msg) {
			return r
		}
	}
	return nil
}

// startManager starts specs and closes the manager at the end of the test.
func startManager(t testing.TB, specs ...Spec) (*Manager, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	m, err := New(specs, Config{Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return m, logs
}

func statusOf(t testing.TB, m *Manager, name string) (st struct {
	State, LastError string
	PID, Restarts    int
	Calls, Errors    int64
	P50, P95         float64
	Info             map[string]string
}) {
	t.Helper()
	for _, s := range m.Status() {
		if s.Name == name {
			st.State, st.LastError, st.PID, st.Restarts = s.State, s.LastError, s.PID, s.Restarts
			st.Calls, st.Errors, st.P50, st.P95, st.Info = s.Calls, s.Errors, s.P50MS, s.P95MS, s.Info
			return st
		}
	}
	t.Fatalf("no plugin %q in status", name)
	return st
}

// waitTimeout bounds every wait of these tests: long enough for a loaded
// two-core machine running the race detector, so that a wait ends on what
// it waits for, not on the clock.
const waitTimeout = time.Minute

// waitFor polls cond until it holds or waitTimeout has passed.
func waitFor(cond func() bool) bool {
	deadline := time.Now().Add(waitTimeout)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cond()
}
