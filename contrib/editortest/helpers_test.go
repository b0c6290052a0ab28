package editortest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

// copyDir copies the regular files of src into dst.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// daemon is a ragd serving a copy of testdata/vault on a temp socket.
type daemon struct {
	Socket string // the socket path (short: sun_path is 104-108 bytes)
	Vault  string // the vault's directory, symlinks resolved
	Client *ipc.Client
	cmd    *exec.Cmd
	out    *syncBuffer
	done   chan struct{}
	err    error
}

// startDaemon builds ragd, starts it on a copy of testdata/vault and waits
// until it has indexed the vault. It is stopped when the test ends.
func startDaemon(t *testing.T) *daemon {
	t.Helper()
	bin := buildRagd(t)
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	vault := filepath.Join(tmp, "vault")
	copyDir(t, filepath.Join("testdata", "vault"), vault)
	sockDir, err := os.MkdirTemp("", "rg")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	d := &daemon{Socket: filepath.Join(sockDir, "ragd.sock"), Vault: vault,
		out: &syncBuffer{}, done: make(chan struct{})}
	cfg := filepath.Join(tmp, "ragd.toml")
	body := fmt.Sprintf("[daemon]\nsocket = %q\ndata_dir = %q\nlog_level = \"debug\"\n\n[[vault]]\nname = \"notes\"\npath = %q\n",
		d.Socket, filepath.Join(tmp, "data"), vault)
	if err := os.WriteFile(cfg, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	d.Client = ipc.NewClient(d.Socket)
	d.cmd = exec.Command(bin, "run", "-config", cfg)
	d.cmd.Stdout, d.cmd.Stderr = d.out, d.out
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.err = d.cmd.Wait(); close(d.done) }()
	t.Cleanup(func() {
		d.Client.Close()
		d.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-d.done:
		case <-time.After(15 * time.Second):
			d.cmd.Process.Kill()
			<-d.done
			t.Errorf("ragd did not stop on SIGTERM")
		}
		if t.Failed() {
			t.Logf("ragd output:\n%s", d.out.String())
		}
	})
	d.waitIdle(t)
	return d
}

func (d *daemon) waitIdle(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-d.done:
			t.Fatalf("ragd exited: %v\n%s", d.err, d.out.String())
		default:
		}
		st, err := d.Client.Status(context.Background())
		if err == nil && st.State == ipc.StateIdle && len(st.Vaults) == 1 && st.Vaults[0].LastReconcile != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("ragd did not become idle:\n%s", d.out.String())
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
