package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/otheruser"
	"github.com/ragd/ragd/internal/ragdtest"
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
		tuneSegmentsFromEnv()
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// testEnv is a vault, a data dir, a socket and a config file in temp dirs
// (ragdtest.Env; a copy may point some of them elsewhere).
type testEnv struct{ ragdtest.Env }

func newEnv(t *testing.T, notes map[string]string) *testEnv {
	t.Helper()
	return &testEnv{*ragdtest.NewEnv(t, notes)}
}

// writeConfig writes the configuration with extra appended to the
// vault's table.
func (e *testEnv) writeConfig(extra string) { e.WriteConfig("", extra, "") }

func (e *testEnv) write(rel, body string) { e.Write(rel, body) }

// daemonProc is a running ragd started from the test binary.
type daemonProc struct{ *ragdtest.Daemon }

// ragd runs the daemon binary with args and returns the process.
func (e *testEnv) ragd(args ...string) *daemonProc { return e.ragdEnv(nil, args...) }

// ragdEnv is ragd with variables added to the daemon's environment (which
// its plugins inherit). t.Setenv would do, but not in parallel tests.
func (e *testEnv) ragdEnv(env []string, args ...string) *daemonProc {
	e.T.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "RAGD_TEST_MAIN=1"), env...)
	return &daemonProc{ragdtest.Start(e.T, cmd, e.Socket)}
}

// start runs `ragd run` and waits until it has reconciled every vault.
func (e *testEnv) start() *daemonProc { return e.startEnv() }

// startEnv runs `ragd run` with env added and waits for the start-up pass.
func (e *testEnv) startEnv(env ...string) *daemonProc {
	e.T.Helper()
	d := e.ragdEnv(env, "run", "-config", e.Config)
	d.WaitIdle(e.T)
	return d
}

func (d *daemonProc) search(t *testing.T, q string) []ipc.Result {
	t.Helper()
	resp, err := d.Client.Search(context.Background(), ipc.SearchRequest{Query: q, K: 10})
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
