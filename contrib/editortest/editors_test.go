package editortest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/internal/otheruser"
	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

// TestEditors runs each editor integration's own test suite headlessly
// against a real ragd serving testdata/vault (RAGD_SOCKET), and one
// serving it with an embedding backlog (RAGD_TEST_EMBEDDING_SOCKET). A suite whose editor is
// not installed is skipped, unless RAGD_REQUIRE_EDITORS=1.
func TestEditors(t *testing.T) {
	if testing.Short() {
		t.Skip("starts ragd and editors: not in -short mode")
	}
	if !requireEditors() && !anyTool("nvim", "emacs", "node") {
		t.Skip("none of nvim, emacs, node is installed: skipping (set RAGD_REQUIRE_EDITORS=1 to make this a failure)")
	}
	bin := buildRagd(t)
	d := startDaemon(t, bin, "", ragdtest.Idle)
	// A second daemon whose embedder holds every document back: its
	// status stays "embedding" with a backlog, for the status lines.
	emb := ragdtest.NewEmbedder(t, true)
	busy := startDaemon(t, bin, emb.Plugin("emb"), func(st *ipc.StatusResponse) bool {
		return ragdtest.Reconciled(st) && st.State == ipc.StateEmbedding && st.Vector != nil && st.Vector.Pending > 0
	})
	resp, err := d.Client.Search(context.Background(), ipc.SearchRequest{Query: "concentric rings blight"})
	if err != nil || len(resp.Results) == 0 || resp.Results[0].Path != "garden/Tomatoes.md" {
		t.Fatalf("the daemon does not serve the test vault: %+v, %v", resp, err)
	}
	root := repoRoot(t)
	env := append(d.env(), "RAGD_TEST_UNSAFE_SOCKET="+unsafeSocket(t), "RAGD_TEST_EMBEDDING_SOCKET="+busy.Socket)

	t.Run("nvim", func(t *testing.T) {
		t.Parallel()
		testNeovim(t, filepath.Join(root, "contrib", "nvim"), env)
	})
	t.Run("emacs", func(t *testing.T) {
		t.Parallel()
		testEmacs(t, filepath.Join(root, "contrib", "emacs"), env)
	})
	t.Run("vscode", func(t *testing.T) {
		t.Parallel()
		testVSCode(t, filepath.Join(root, "contrib", "vscode"), env)
	})
}

// unsafeSocket starts an impostor ragd where another user could have put
// it: in a directory another user owns (mode 0777), listening as that user,
// when the test runs as root; otherwise in a directory of ours that others
// may write. Each suite asks it for a search and must refuse; once all are
// done, the impostor must have received nothing.
func unsafeSocket(t *testing.T) string {
	t.Helper()
	parent, err := os.MkdirTemp("", "rgu")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	if err := os.Chmod(parent, 0o711); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(parent, "ragd-squat")
	sock := filepath.Join(dir, "ragd.sock")
	var ln net.Listener
	if err := otheruser.Available(); err == nil {
		if err := otheruser.Mkdir(dir, otheruser.UID, 0o777); err != nil {
			t.Fatal(err)
		}
		if ln, err = otheruser.Listen(otheruser.UID, sock); err != nil {
			t.Fatal(err)
		}
	} else {
		t.Logf("the impostor runs as us in a directory others can write (%v)", err)
		if err := os.Mkdir(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		if ln, err = net.Listen("unix", sock); err != nil {
			t.Fatal(err)
		}
	}
	im := otheruser.Serve(ln)
	t.Cleanup(func() {
		im.Close()
		if n := im.Received(); n != 0 {
			t.Errorf("%d requests from the editor clients reached the impostor", n)
		}
	})
	return sock
}

// testNeovim runs contrib/nvim/tests/run.lua in a headless Neovim with no
// user configuration; the script exits with :cquit on any failure.
func testNeovim(t *testing.T, dir string, env []string) {
	nvim := needTools(t, "nvim")[0]
	t.Logf("%s", firstLine(run(t, dir, nil, 30*time.Second, nvim, "--version")))
	// Keep Neovim's state, log and shada out of the user's home.
	home := t.TempDir()
	env = append(env, "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"NVIM_LOG_FILE="+filepath.Join(home, "nvim.log"))
	rtp := strings.NewReplacer(`\`, `\\`, " ", `\ `, ",", `\,`, "|", `\|`).Replace(dir)
	out := run(t, dir, env, 2*time.Minute, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n",
		"--cmd", "set rtp^="+rtp, "-c", "luafile tests/run.lua")
	if !strings.Contains(out, "ragd.nvim tests: ok") {
		t.Fatalf("the Neovim suite did not report success:\n%s", out)
	}
}

var ertSummary = regexp.MustCompile(`Ran (\d+) tests?, (\d+) results? as expected, (\d+) unexpected(?:, (\d+) skipped)?`)

// testEmacs runs the ERT suite in batch mode, checks that no test that
// needs the daemon was skipped, then byte-compiles ragd.el with warnings
// as errors and runs checkdoc on it.
func testEmacs(t *testing.T, dir string, env []string) {
	emacs := needTools(t, "emacs")[0]
	t.Logf("%s", firstLine(run(t, dir, nil, 30*time.Second, emacs, "--version")))
	out := run(t, dir, env, 2*time.Minute, emacs, "--batch", "-Q", "-L", ".", "-l", "ragd.el", "-l", "ragd-test.el",
		"-f", "ert-run-tests-batch-and-exit")
	m := ertSummary.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no ERT summary in the output:\n%s", out)
	}
	if m[4] != "" && m[4] != "0" {
		t.Errorf("%s ERT tests were skipped:\n%s", m[4], out)
	}

	// Byte-compile a copy (no .elc in the source tree), warnings are errors.
	tmp := t.TempDir()
	src, err := os.ReadFile(filepath.Join(dir, "ragd.el"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmp, "ragd.el"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	run(t, tmp, nil, time.Minute, emacs, "--batch", "-Q", "-L", ".",
		"--eval", "(setq byte-compile-error-on-warn t)", "-f", "batch-byte-compile", "ragd.el")
	// checkdoc-file reports each problem as "FILE:LINE: message".
	out = run(t, tmp, nil, time.Minute, emacs, "--batch", "-Q", "--eval", `(checkdoc-file "ragd.el")`)
	if regexp.MustCompile(`ragd\.el:\d+:`).MatchString(out) {
		t.Errorf("checkdoc complains about ragd.el:\n%s", out)
	}
}

// testVSCode installs the extension's pinned devDependencies when
// node_modules is missing or older than package-lock.json, compiles the
// TypeScript with no errors allowed, then runs the client's tests (Node's
// built-in runner) against the daemon.
func testVSCode(t *testing.T, dir string, env []string) {
	tools := needTools(t, "node", "npm")
	node, npm := tools[0], tools[1]
	t.Logf("node %s", firstLine(run(t, dir, nil, 30*time.Second, node, "--version")))
	if !nodeModulesFresh(dir) {
		run(t, dir, nil, 10*time.Minute, npm, "ci", "--no-audit", "--no-fund")
	}
	if err := os.RemoveAll(filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	run(t, dir, nil, 3*time.Minute, node, filepath.Join("node_modules", "typescript", "bin", "tsc"), "-p", ".")
	tests, err := filepath.Glob(filepath.Join(dir, "out", "test", "*.test.js"))
	if err != nil || len(tests) == 0 {
		t.Fatalf("no compiled tests in out/test (%v)", err)
	}
	for i, p := range tests {
		tests[i], _ = filepath.Rel(dir, p)
	}
	out := run(t, dir, env, 2*time.Minute, node, append([]string{"--test"}, tests...)...)
	if m := regexp.MustCompile(`(?m)^# skipped (\d+)`).FindStringSubmatch(out); m != nil && m[1] != "0" {
		t.Errorf("%s client tests were skipped:\n%s", m[1], out)
	}
}

// nodeModulesFresh reports whether node_modules was installed from the
// current package-lock.json.
func nodeModulesFresh(dir string) bool {
	lock, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return false
	}
	inst, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "typescript", "bin", "tsc")); err != nil {
		return false
	}
	return !inst.ModTime().Before(lock.ModTime())
}

func anyTool(names ...string) bool {
	for _, n := range names {
		if _, err := exec.LookPath(n); err == nil {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
