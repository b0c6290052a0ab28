package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/ragdtest"
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
type env struct{ ragdtest.Env }

func newEnv(t *testing.T, notes map[string]string, extra string) *env {
	t.Helper()
	e := &env{*ragdtest.NewEnv(t, notes)}
	e.WriteConfig("", extra, "")
	return e
}

// environ is the environment of the binaries: no user configuration or
// socket of the machine, the test's socket.
func (e *env) environ(extra ...string) []string {
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + e.Root,
		"XDG_CONFIG_HOME=" + filepath.Join(e.Root, "config"), "XDG_DATA_HOME=" + filepath.Join(e.Root, "share"),
		"RAGD_SOCKET=" + e.Socket, "RAGD_CONFIG=" + e.Config}
	return append(env, extra...)
}

// start runs `ragd run` with the binary ragd (default: the one built).
func (e *env) start(ragd string) *ragdtest.Daemon {
	e.T.Helper()
	if ragd == "" {
		ragd = filepath.Join(bin, "ragd")
	}
	cmd := exec.Command(ragd, "run", "-config", e.Config)
	cmd.Env = e.environ()
	return ragdtest.Start(e.T, cmd, e.Socket)
}

// ragctl runs ragctl with args and returns its exit code and output.
func (e *env) ragctl(args ...string) (code int, stdout, stderr string) {
	e.T.Helper()
	cmd := exec.Command(filepath.Join(bin, "ragctl"), args...)
	cmd.Env = e.environ()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), out.String(), errb.String()
	} else if err != nil {
		e.T.Fatal(err)
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
		e.T.Fatalf("status -json: %v\n%s", err, out)
	}
	return &st
}

// waitFor asks ragctl status -json until ok holds for the answer,
// checking on every answer that idle means nothing is left (no vectors
// pending).
func (e *env) waitFor(d *ragdtest.Daemon, what string, ok func(*ipc.StatusResponse) bool) *ipc.StatusResponse {
	e.T.Helper()
	var st *ipc.StatusResponse
	d.Poll(e.T, what, func() bool {
		st = e.status()
		if st == nil {
			return false
		}
		if st.State == ipc.StateIdle && st.Vector != nil && st.Vector.Pending > 0 {
			e.T.Fatalf("status says idle with %d chunks waiting for vectors", st.Vector.Pending)
		}
		return ok(st)
	})
	return st
}

// idle reports whether every vault is reconciled and nothing runs.
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
