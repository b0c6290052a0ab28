// Package ragdtest runs a real ragd for tests: a vault, a data dir and a
// configuration in a temporary directory whose path is short enough for
// the daemon's socket, the daemon as a process (a built binary, or a test
// binary that re-executes itself as ragd), and waits on its status rather
// than on the clock. cmd/ragd's, the e2e and the editor tests use it.
package ragdtest

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/ipc/ipctest"
)

// WaitTimeout bounds every wait of this package: long enough for a
// loaded two-core machine running the race detector, so that a wait ends
// on what it waits for, not on the clock.
const WaitTimeout = 2 * time.Minute

// Env is a vault named "notes", a data dir, a configuration and a socket
// path under one temporary root.
type Env struct {
	T      *testing.T
	Root   string // short enough for the socket (ipctest.ShortDir)
	Vault  string
	Config string
	Socket string
	Data   string
}

// NewEnv writes notes (vault-relative path → text) into a new vault and a
// configuration indexing it (WriteConfig with nothing added).
func NewEnv(t *testing.T, notes map[string]string) *Env {
	t.Helper()
	// Symlinks resolved (macOS's /tmp is one), so paths in answers are
	// the ones written here.
	root, err := filepath.EvalSymlinks(ipctest.ShortDir(t))
	if err != nil {
		t.Fatal(err)
	}
	e := &Env{T: t, Root: root, Vault: filepath.Join(root, "vault"), Config: filepath.Join(root, "ragd.toml"),
		Socket: filepath.Join(root, "s", "ragd.sock"), Data: filepath.Join(root, "data")}
	if err := os.MkdirAll(e.Vault, 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, body := range notes {
		e.Write(rel, body)
	}
	e.WriteConfig("", "", "")
	return e
}

// Write writes a note of the vault, creating its folders.
func (e *Env) Write(rel, body string) {
	e.T.Helper()
	p := filepath.Join(e.Vault, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.T.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		e.T.Fatal(err)
	}
}

// CopyTree copies the regular files under src (a vault kept in the
// repository, say) into dst, creating its folders.
func CopyTree(t testing.TB, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if de.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !de.Type().IsRegular() {
			return nil
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

// WriteConfig writes the configuration: the socket, the data dir and
// debug logging, with daemonExtra added to [daemon]; the "notes" vault
// with vaultExtra added to its table; then tail (more tables: [search],
// [[plugin]], more [[vault]]s).
func (e *Env) WriteConfig(daemonExtra, vaultExtra, tail string) {
	e.T.Helper()
	cfg := fmt.Sprintf("[daemon]\nsocket = %q\ndata_dir = %q\nlog_level = \"debug\"\n%s\n\n[[vault]]\nname = \"notes\"\npath = %q\n%s\n%s",
		e.Socket, e.Data, daemonExtra, e.Vault, vaultExtra, tail)
	if err := os.WriteFile(e.Config, []byte(cfg), 0o600); err != nil {
		e.T.Fatal(err)
	}
}

// Daemon is a ragd process.
type Daemon struct {
	Cmd    *exec.Cmd
	Client *ipc.Client
	out    lockedBuffer
	exited chan struct{}
	err    error // Wait's, once exited is closed
}

// Start starts cmd — a ragd, or a test binary that runs as one — with its
// output collected and a client of socket. When the test ends the process
// is killed if it still runs, and its output is logged if the test failed.
func Start(t testing.TB, cmd *exec.Cmd, socket string) *Daemon {
	t.Helper()
	d := &Daemon{Cmd: cmd, Client: ipc.NewClient(socket), exited: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &d.out, &d.out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { d.err = cmd.Wait(); close(d.exited) }()
	t.Cleanup(func() {
		d.Client.Close()
		cmd.Process.Kill()
		<-d.exited
		if t.Failed() {
			t.Logf("ragd output:\n%s", d.Output())
		}
	})
	return d
}

// Output is what the daemon has written so far.
func (d *Daemon) Output() string { return d.out.String() }

// Exited is closed when the process has ended; Err is then its exit error.
func (d *Daemon) Exited() <-chan struct{} { return d.exited }

// Err is the process's exit error, once Exited is closed.
func (d *Daemon) Err() error {
	<-d.exited
	return d.err
}

// Poll calls cond every 10 ms until it holds and fails the test if it
// does not within WaitTimeout, or at once if the daemon exits. what says
// what is awaited, for the failure: a string, or a func() string called
// then (to say what was last seen).
func (d *Daemon) Poll(t testing.TB, what any, cond func() bool) {
	t.Helper()
	describe := func() string {
		if f, ok := what.(func() string); ok {
			return f()
		}
		return fmt.Sprint(what)
	}
	deadline := time.Now().Add(WaitTimeout)
	for !cond() {
		select {
		case <-d.exited:
			t.Fatalf("ragd exited while waiting for %s: %v\n%s", describe(), d.err, d.Output())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", WaitTimeout, describe())
		}
	}
}

// WaitStatus polls the daemon's status until ok holds for it, and returns
// that status.
func (d *Daemon) WaitStatus(t testing.TB, what any, ok func(*ipc.StatusResponse) bool) *ipc.StatusResponse {
	t.Helper()
	var st *ipc.StatusResponse
	d.Poll(t, what, func() bool {
		s, err := d.Client.Status(context.Background())
		if err != nil || !ok(s) {
			return false
		}
		st = s
		return true
	})
	return st
}

// WaitIdle waits until the daemon is idle with every online vault
// reconciled (Idle).
func (d *Daemon) WaitIdle(t testing.TB) *ipc.StatusResponse {
	t.Helper()
	return d.WaitStatus(t, "ragd to be idle", Idle)
}

// Idle reports whether a status says the daemon has nothing left to do:
// no pass running or queued and every online vault reconciled.
func Idle(st *ipc.StatusResponse) bool { return st.State == ipc.StateIdle && Reconciled(st) }

// Reconciled reports whether every online vault has been reconciled.
func Reconciled(st *ipc.StatusResponse) bool {
	for _, v := range st.Vaults {
		if v.LastReconcile == nil && v.Online {
			return false
		}
	}
	return true
}

// Stop sends SIGTERM and waits for a clean exit.
func (d *Daemon) Stop(t testing.TB) {
	t.Helper()
	d.Cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.exited:
	case <-time.After(WaitTimeout):
		t.Fatalf("ragd did not stop on SIGTERM:\n%s", d.Output())
	}
	if d.err != nil {
		t.Fatalf("ragd exited with %v:\n%s", d.err, d.Output())
	}
}

// lockedBuffer collects a process's output.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
