package editortest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

// requireEditors makes a missing editor or toolchain a failure instead of
// a skip (CI sets RAGD_REQUIRE_EDITORS=1 and installs them).
func requireEditors() bool { return os.Getenv("RAGD_REQUIRE_EDITORS") == "1" }

// needTools returns the paths of the named programs, or skips the test
// (fails it under RAGD_REQUIRE_EDITORS=1) when one is missing.
func needTools(t *testing.T, names ...string) []string {
	t.Helper()
	var paths []string
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			if requireEditors() {
				t.Fatalf("%s is not installed (required: RAGD_REQUIRE_EDITORS=1)", n)
			}
			t.Skipf("%s is not installed: skipping (set RAGD_REQUIRE_EDITORS=1 to make this a failure)", n)
		}
		paths = append(paths, p)
	}
	return paths
}

// repoRoot is the module root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root not found from the test's directory: %v", err)
	}
	return root
}

// goTool finds the go command that runs these tests.
func goTool(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	if r := os.Getenv("GOROOT"); r != "" {
		p := filepath.Join(r, "bin", "go")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("the go command is not in PATH (needed to build ./cmd/ragd)")
	return ""
}

// buildRagd builds ./cmd/ragd into a temp dir and returns the binary, or
// returns $RAGD_BIN when it is set (a ragd built already, e.g. bin/ragd).
func buildRagd(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("RAGD_BIN"); p != "" {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(abs); err != nil {
			t.Fatalf("RAGD_BIN: %v", err)
		}
		return abs
	}
	bin := filepath.Join(t.TempDir(), "ragd")
	cmd := exec.Command(goTool(t), "build", "-o", bin, "./cmd/ragd")
	cmd.Dir = repoRoot(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/ragd: %v\n%s", err, out)
	}
	return bin
}

// daemon is a ragd serving a copy of testdata/vault on a temp socket.
type daemon struct {
	*ragdtest.Daemon
	Socket string // the socket path (short: sun_path is 104-108 bytes)
	Vault  string // the vault's directory, symlinks resolved
}

// startDaemon starts the ragd binary bin on a copy of testdata/vault,
// with tail added to its configuration, and waits until its status
// satisfies ready. It is stopped when the test ends.
func startDaemon(t *testing.T, bin, tail string, ready func(*ipc.StatusResponse) bool) *daemon {
	t.Helper()
	e := ragdtest.NewEnv(t, nil)
	e.WriteConfig("", "", tail)
	ragdtest.CopyTree(t, filepath.Join("testdata", "vault"), e.Vault)
	d := &daemon{Daemon: ragdtest.Start(t, exec.Command(bin, "run", "-config", e.Config), e.Socket),
		Socket: e.Socket, Vault: e.Vault}
	d.WaitStatus(t, "the test daemon to be ready", ready)
	return d
}

// env is what the editor test suites need to find the daemon and vault.
func (d *daemon) env() []string {
	return []string{"RAGD_SOCKET=" + d.Socket, "RAGD_TEST_VAULT=" + d.Vault}
}

// run runs name args in dir with env added to the environment, fails the
// test when it does not exit 0 within timeout, and returns its output.
func run(t *testing.T, dir string, env []string, timeout time.Duration, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	line := filepath.Base(name) + " " + strings.Join(args, " ")
	if ctx.Err() != nil {
		t.Fatalf("%s: timed out after %v:\n%s", line, timeout, out)
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("%s: exit %d:\n%s", line, ee.ExitCode(), out)
		}
		t.Fatalf("%s: %v\n%s", line, err, out)
	}
	t.Logf("%s (%.1fs):\n%s", line, time.Since(start).Seconds(), out)
	return string(out)
}
