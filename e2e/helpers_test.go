package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// bin is the directory holding the ragd and ragctl built for these tests.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ragd-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = dir
	root, _ := filepath.Abs("..")
	for _, name := range []string{"ragd", "ragctl"} {
		cmd := exec.Command(goTool(), "build", "-o", filepath.Join(dir, name), "./cmd/"+name)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build ./cmd/%s: %v\n%s", name, err, out)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// goTool is the go command that runs these tests: the one go test put on
// PATH.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return "go"
}

// env is a vault, a config, a data dir and a socket in a short temp dir.
type env struct {
	t                           *testing.T
	root, vault, config, socket string
}

func newEnv(t *testing.T, notes map[string]string, extra string) *env {
	t.Helper()
	root, err := os.MkdirTemp("", "ragd-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	e := &env{t: t, root: root, vault: filepath.Join(root, "vault"), config: filepath.Join(root, "ragd.toml"),
		socket: filepath.Join(root, "ragd.sock")}
	for rel, body := range notes {
		e.write(rel, body)
	}
	os.MkdirAll(e.vault, 0o755)
	cfg := fmt.Sprintf("[daemon]\nsocket = %q\ndata_dir = %q\nlog_level = \"debug\"\n\n[[vault]]\nname = \"notes\"\npath = %q\n%s",
		e.socket, filepath.Join(root, "data"), e.vault, extra)
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) write(rel, body string) {
	p := filepath.Join(e.vault, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// environ is the environment of the binaries: no user configuration or
// socket of the machine, the test's socket.
func (e *env) environ(extra ...string) []string {
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + e.root,
		"XDG_CONFIG_HOME=" + filepath.Join(e.root, "config"), "XDG_DATA_HOME=" + filepath.Join(e.root, "share"),
		"RAGD_SOCKET=" + e.socket, "RAGD_CONFIG=" + e.config}
	return append(env, extra...)
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

// daemon is a running ragd.
type daemon struct {
	cmd  *exec.Cmd
	log  *lockedBuffer
	done chan error
}

// start runs `ragd run` with the binary ragd (default: the one built).
func (e *env) start(ragd string) *daemon {
	e.t.Helper()
	if ragd == "" {
		ragd = filepath.Join(bin, "ragd")
	}
	d := &daemon{cmd: exec.Command(ragd, "run", "-config", e.config), log: &lockedBuffer{}, done: make(chan error, 1)}
	d.cmd.Env = e.environ()
	d.cmd.Stdout, d.cmd.Stderr = d.log, d.log
	if err := d.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { d.done <- d.cmd.Wait() }()
	e.t.Cleanup(func() {
		d.cmd.Process.Kill()
		<-d.done
		if e.t.Failed() {
			e.t.Logf("ragd log:\n%s", d.log.String())
		}
	})
	return d
}

// stop ends ragd with SIGTERM and waits for it.
func (d *daemon) stop(t *testing.T) {
	t.Helper()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.done:
		d.done <- err // for the cleanup
	case <-time.After(30 * time.Second):
		t.Fatal("ragd did not stop on SIGTERM")
	}
}

// ragctl runs ragctl with args and returns its exit code and output.
func (e *env) ragctl(args ...string) (code int, stdout, stderr string) {
	e.t.Helper()
	cmd := exec.Command(filepath.Join(bin, "ragctl"), args...)
	cmd.Env = e.environ()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return 0, out.String(), errb.String()
}

// status asks ragctl status -json; nil while ragd does not answer.
func (e *env) status() *ipc.StatusResponse {
	code, out, _ := e.ragctl("status", "-json")
	if code != 0 {
		return nil
	}
	var st ipc.StatusResponse
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		e.t.Fatalf("status -json: %v\n%s", err, out)
	}
	return &st
}

// waitFor polls ragd's status until ok holds for it, checking on every
// answer that idle means nothing is left (no vectors pending).
func (e *env) waitFor(d *daemon, what string, ok func(*ipc.StatusResponse) bool) *ipc.StatusResponse {
	e.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-d.done:
			d.done <- err
			e.t.Fatalf("ragd exited (%v) waiting for %s:\n%s", err, what, d.log.String())
		default:
		}
		if st := e.status(); st != nil {
			if st.State == ipc.StateIdle && st.Vector != nil && st.Vector.Pending > 0 {
				e.t.Fatalf("status says idle with %d chunks waiting for vectors", st.Vector.Pending)
			}
			if ok(st) {
				return st
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("timed out waiting for %s", what)
	return nil
}

func idle(st *ipc.StatusResponse) bool {
	for _, v := range st.Vaults {
		if v.LastReconcile == nil {
			return false
		}
	}
	return st.State == ipc.StateIdle
}

func mustContain(t *testing.T, what, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("%s lacks %q:\n%s", what, sub, s)
		}
	}
}
