package daemon

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/ipc"
)

// ragdGoroutines returns the stacks of the goroutines running ragd code,
// other than the calling test's.
func ragdGoroutines() []string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "github.com/ragd/ragd/") && !strings.Contains(g, "daemon.TestRunJoinsItsLoops") {
			out = append(out, g)
		}
	}
	return out
}

// Run owns every loop it starts — job runner, watchers and their event
// loops, periodic rescans, the embedding worker, the plugin manager's
// start, the server — and stops them all: no ragd goroutine outlives it,
// and a reindex waiting when the daemon stops is answered, not left
// hanging.
func TestRunJoinsItsLoops(t *testing.T) {
	dir, err := os.MkdirTemp("", "ragd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	vault := filepath.Join(dir, "v")
	if err := os.MkdirAll(filepath.Join(vault, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, "sub", "a.md"), []byte("# A\n\nalpha words\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Daemon.Socket = filepath.Join(dir, "s")
	cfg.Daemon.DataDir = filepath.Join(dir, "data")
	cfg.Daemon.RescanInterval = time.Hour
	cfg.Vaults = []config.Vault{{Name: "notes", Path: vault, Include: config.DefaultInclude,
		Exclude: config.DefaultExclude, Watch: true}}
	d, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := len(ragdGoroutines())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- d.Run(ctx) }()

	c := ipc.NewClient(cfg.Daemon.Socket)
	defer c.Close()
	for {
		st, err := c.Status(t.Context())
		if err == nil && st.State == ipc.StateIdle && len(st.Vaults) == 1 && st.Vaults[0].LastReconcile != nil {
			break
		}
		select {
		case err := <-ran:
			t.Fatalf("Run returned before serving: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	// A waited reindex in flight when the daemon stops gets an answer. The
	// daemon is stopped once the pass has begun (its run is recorded) or
	// has been answered.
	answered := make(chan error, 1)
	go func() {
		_, err := c.Reindex(t.Context(), ipc.ReindexRequest{Wait: true})
		answered <- err
	}()
	var reindexErr error
	waiting := true
	for waiting {
		select {
		case reindexErr = <-answered:
			answered <- reindexErr
			waiting = false
		case <-time.After(5 * time.Millisecond):
			runs, err := c.Runs(t.Context(), 10)
			if err == nil && slices.ContainsFunc(runs.Runs, func(r ipc.Run) bool { return r.Trigger == triggerManual }) {
				waiting = false
			}
		}
	}
	cancel()
	if err := <-ran; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := <-answered; err != nil && !errors.Is(err, ipc.ErrUnavailable) {
		t.Errorf("reindex at shutdown: %v, want an answer or ErrUnavailable", err)
	}
	c.Close()
	// A joined goroutine may still be returning from its last frame: the
	// stacks are read until they settle (a leaked one never does; the
	// bound only ends the test).
	var left []string
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if left = ragdGoroutines(); len(left) <= before {
			return
		}
	}
	t.Errorf("%d ragd goroutines outlived Run:\n%s", len(left)-before, strings.Join(left, "\n\n"))
}
