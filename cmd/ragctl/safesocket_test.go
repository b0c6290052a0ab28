package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/otheruser"
	"github.com/ragd/ragd/ipc/ipctest"
)

// TestSquattedSocketDirectory replays the hijack from the fault campaign:
// another user owns ragd's socket directory (mode 0777) and listens there
// with a fake ragd. No command may send it anything: ragctl exits 3 and
// says why, and the MCP tools answer with the same refusal.
func TestSquattedSocketDirectory(t *testing.T) {
	if err := otheruser.Available(); err != nil {
		t.Skipf("skipping: %v (ipc's simulated-owner tests cover the checks)", err)
	}
	isolate(t)
	open := ipctest.ShortDir(t)
	if err := os.Chmod(open, 0o711); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(open, "ragd-squat")
	if err := otheruser.Mkdir(dir, otheruser.UID, 0o777); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "ragd.sock")
	ln, err := otheruser.Listen(otheruser.UID, sock)
	if err != nil {
		t.Fatal(err)
	}
	im := otheruser.Serve(ln)
	t.Cleanup(func() { im.Close() })

	for _, args := range [][]string{
		{"-socket", sock, "search", "secret project plans"},
		{"-socket", sock, "context", "secret project plans"},
		{"-socket", sock, "status"},
		{"-socket", sock, "reindex"},
	} {
		code, stdout, stderr := runCmd(t, args...)
		if code != exitUnreachable || !strings.Contains(stderr, "refusing socket") || strings.Contains(stdout, "EVIL") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and a refusal", args, code, stdout, stderr, exitUnreachable)
		}
	}

	if code, stdout, _ := runCmd(t, "-socket", sock, "doctor"); code != exitFail || !strings.Contains(stdout, "refusing socket") {
		t.Errorf("doctor: exit %d, %q; want a failed daemon check naming the refusal", code, stdout)
	}

	cs := startMCP(t, sock)
	res := callTool(t, cs, "search", map[string]any{"query": "secret project plans"})
	if text := textOf(res); !res.IsError || !strings.Contains(text, "refusing socket") || strings.Contains(text, "EVIL") {
		t.Errorf("MCP search: error %v, %q; want a refusal", res.IsError, text)
	}
	if n := im.Received(); n != 0 {
		t.Fatalf("%d requests reached the other user's listener", n)
	}
}
