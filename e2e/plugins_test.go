package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

// A plugin that cannot start fails the same way at every retry: ragd logs
// it once as a warning (then at debug level), retries with a growing
// delay, and the embedding worker says it is paused once.
func TestRepeatedStartFailureLoggedOnce(t *testing.T) {
	e := newEnv(t, notes, "")
	script := filepath.Join(e.Root, "broken-embedder")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho 'cannot load model weights.bin' >&2\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.WriteConfig("", "", fmt.Sprintf(`
[[plugin]]
name = "broken"
kind = "embedder"
command = %q

[search]
embedder = "broken"
`, script))
	d := e.start("")
	const restarts = 5
	var p ipc.PluginStatus
	d.Poll(t, func() string { return fmt.Sprintf("%d restarts of the broken plugin (last seen %+v)", restarts, p) }, func() bool {
		code, out, _ := e.ragctl("plugins", "-json")
		var resp ipc.PluginsResponse
		if code != 0 || json.Unmarshal([]byte(out), &resp) != nil {
			return false
		}
		for _, q := range resp.Plugins {
			if q.Name == "broken" {
				p = q
			}
		}
		return p.Restarts >= restarts
	})
	if p.State != ipc.PluginFailed && p.State != ipc.PluginStarting {
		t.Errorf("state %q, want failed (restarting)", p.State)
	}
	if !strings.Contains(p.LastError, "cannot load model weights.bin") {
		t.Errorf("last_error %q does not carry the plugin's own message", p.LastError)
	}
	if st := e.status(); st.State == ipc.StateIdle || st.Vector == nil || st.Vector.Pending == 0 {
		t.Errorf("status with a broken embedder: state %q, vector %+v", st.State, st.Vector)
	}
	d.Stop(t)

	var warn, again []string
	var retry []time.Duration
	retryIn := regexp.MustCompile(`retry_in=(\S+)`)
	for _, line := range strings.Split(d.Output(), "\n") {
		if !strings.Contains(line, "plugin=broken") {
			continue
		}
		switch {
		case strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR"):
			warn = append(warn, line)
		case strings.Contains(line, `msg="plugin failed to start again"`):
			again = append(again, line)
		default:
			continue
		}
		if m := retryIn.FindStringSubmatch(line); m != nil {
			d, err := time.ParseDuration(m[1])
			if err != nil {
				t.Fatalf("retry_in in %q: %v", line, err)
			}
			retry = append(retry, d)
		}
	}
	if len(warn) != 1 || !strings.Contains(warn[0], "cannot load model weights.bin") {
		t.Errorf("%d warnings about the broken plugin, want 1 carrying its message:\n%s", len(warn), strings.Join(warn, "\n"))
	}
	if len(again) < restarts-1 {
		t.Errorf("%d debug lines for the repeated failure, want at least %d", len(again), restarts-1)
	}
	// The delay doubles from one attempt to the next.
	for i := 1; i < len(retry); i++ {
		if retry[i] <= retry[i-1] && retry[i] < 30*time.Second {
			t.Errorf("retry delays do not grow: %v", retry)
			break
		}
	}
	// The plugin's own stderr, the same at every attempt, is shown once
	// above debug level.
	shown := 0
	for _, line := range strings.Split(d.Output(), "\n") {
		if strings.Contains(line, "plugin=broken") && strings.Contains(line, "stream=stderr") && !strings.Contains(line, "level=DEBUG") {
			shown++
		}
	}
	if shown != 1 {
		t.Errorf("the plugin's stderr was logged %d times above debug level, want once", shown)
	}
	if n := strings.Count(d.Output(), `msg="embedding paused; retrying with backoff"`); n != 1 {
		t.Errorf("embedding paused warned %d times, want once", n)
	}
}
