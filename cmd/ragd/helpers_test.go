package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ragd/ragd/internal/otheruser"
	"github.com/ragd/ragd/ipc"
)

// TestMain lets the test binary serve as the ragd binary: the end-to-end
// tests re-execute it with RAGD_TEST_MAIN=1, so they run the real daemon
// (built with the same flags, -race included) as a separate process.
func TestMain(m *testing.M) {
	// RAGD_TEST_NO_DAC=1: a daemon run as root that folder permissions
	// still apply to (unreadable folders).
	otheruser.ReexecWithoutDAC("RAGD_TEST_NO_DAC")
	if os.Getenv("RAGD_TEST_MAIN") == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// testEnv is a vault, a data dir, a socket and a config file in temp dirs.
type testEnv struct {
	t      *testing.T
	root   string
	vault  string
	config string
	socket string
	data   string
}

func newEnv(t *testing.T, notes map[string]string) *testEnv {
	t.Helper()
	// Unix socket paths are short (104 bytes on macOS): keep the root short.
	root, err := os.MkdirTemp("", "ragd-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	e := &testEnv{t: t, root: root, vault: filepath.Join(root, "vault"),
		config: filepath.Join(root, "ragd.toml"), socket: filepath.Join(root, "s", "ragd.sock"),
		data: filepath.Join(root, "data")}
	if err := os.MkdirAll(e.vault, 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, body := range notes {
		e.write(rel, body)
	}
	e.writeConfig("")
	return e
}

func (e *testEnv) writeConfig(extra string) {
	cfg := fmt.Sprintf("[daemon]\nsocket = %q\ndata_dir = %q\nlog_level = \"debug\"\n\n[[vault]]\nname = \"notes\"\npath = %q\n%s",
		e.socket, e.data, e.vault, extra)
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

func (e *testEnv) write(rel, body string) {
	p := filepath.Join(e.vault, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// daemonProc is a running ragd started from the test binary.
type daemonProc struct {
	cmd    *exec.Cmd
	out    *syncBuffer
	done   chan struct{}
	err    error
	client *ipc.Client
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

// ragd runs the daemon binary with args and returns the process.
func (e *testEnv) ragd(args ...string) *daemonProc {
	e.t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "RAGD_TEST_MAIN=1")
	d := &daemonProc{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{}), client: ipc.NewClient(e.socket)}
	cmd.Stdout, cmd.Stderr = d.out, d.out
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { d.err = cmd.Wait(); close(d.done) }()
	e.t.Cleanup(func() {
		d.client.Close()
		cmd.Process.Kill()
		<-d.done
		if e.t.Failed() {
			e.t.Logf("ragd output:\n%s", d.out.String())
		}
	})
	return d
}

// start runs `ragd run` and waits until it has reconciled every vault.
func (e *testEnv) start() *daemonProc {
	e.t.Helper()
	d := e.ragd("run", "-config", e.config)
	d.waitIdle(e.t)
	return d
}

func (d *daemonProc) waitIdle(t *testing.T) *ipc.StatusResponse {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-d.done:
			t.Fatalf("ragd exited: %v\n%s", d.err, d.out.String())
		default:
		}
		st, err := d.client.Status(context.Background())
		if err == nil && st.State == ipc.StateIdle && reconciled(st) {
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("ragd did not become idle:\n%s", d.out.String())
	return nil
}

func reconciled(st *ipc.StatusResponse) bool {
	for _, v := range st.Vaults {
		if v.LastReconcile == nil && v.Online {
			return false
		}
	}
	return true
}

// stop sends SIGTERM and waits for a clean exit.
func (d *daemonProc) stop(t *testing.T) {
	t.Helper()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-d.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("ragd did not stop on SIGTERM:\n%s", d.out.String())
	}
	if d.err != nil {
		t.Fatalf("ragd exited with %v:\n%s", d.err, d.out.String())
	}
}

func (d *daemonProc) search(t *testing.T, q string) []ipc.Result {
	t.Helper()
	resp, err := d.client.Search(context.Background(), ipc.SearchRequest{Query: q, K: 10})
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return resp.Results
}

// paths lists the distinct files of results, in rank order.
func paths(rs []ipc.Result) string {
	var ps []string
	seen := map[string]bool{}
	for _, r := range rs {
		if !seen[r.Path] {
			seen[r.Path] = true
			ps = append(ps, r.Path)
		}
	}
	return strings.Join(ps, ",")
}
