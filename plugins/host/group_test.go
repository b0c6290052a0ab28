//go:build linux

package host

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/internal/testplugin"
)

// TestTimeoutKillsThePluginsChildren: a plugin written as a script starts
// children of its own (here a sleep); when the plugin is killed for a
// timeout they must go with it, not live on as orphans.
func TestTimeoutKillsThePluginsChildren(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "sleep.pid")
	script := filepath.Join(dir, "plugin.sh")
	body := "#!/bin/sh\nsleep 1000 &\necho $! > \"$SLEEP_PID\"\nexec \"$PLUGIN_EXE\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	spec := testSpec("emb", plugins.KindEmbedder, nil)
	spec.Env["SLEEP_PID"], spec.Env["PLUGIN_EXE"] = pidFile, spec.Command
	spec.Command = script
	spec.Timeout = 400 * time.Millisecond
	m, _ := startManager(t, spec)
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	sleepPID, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || !alive(sleepPID) {
		t.Fatalf("the plugin's child: pid %q, alive %v", b, alive(sleepPID))
	}
	t.Cleanup(func() { sigkill(sleepPID) })
	before := statusOf(t, m, "emb")

	_, err = embedder(t, m, "emb").Embed(context.Background(), plugins.InputDocument, []string{testplugin.Hang})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err = %v, want ErrTimeout", err)
	}
	if !waitFor(func() bool { return !alive(before.PID) }) {
		t.Fatalf("hung plugin %d still alive", before.PID)
	}
	if !waitFor(func() bool { return !alive(sleepPID) }) {
		t.Errorf("the plugin's child %d outlived the plugin killed for a timeout", sleepPID)
	}
}
