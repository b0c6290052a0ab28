package main

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

// writeConfigTail writes a configuration with extra [daemon] keys, extra
// keys for the "notes" vault and a tail of further tables ([[plugin]],
// [search], more [[vault]]s). writeConfig cannot do this: its text goes
// after the [[vault]] table, where [daemon] keys cannot go.
func (e *testEnv) writeConfigTail(daemonExtra, vaultExtra, tail string) {
	e.t.Helper()
	cfg := fmt.Sprintf("[daemon]\nsocket = %q\ndata_dir = %q\nlog_level = \"debug\"\n%s\n\n[[vault]]\nname = \"notes\"\npath = %q\n%s\n%s",
		e.socket, e.data, daemonExtra, e.vault, vaultExtra, tail)
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// ragdEnv is ragd with variables added to the daemon's environment (which
// its plugins inherit). t.Setenv would do, but not in parallel tests.
func (e *testEnv) ragdEnv(env []string, args ...string) *daemonProc {
	e.t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "RAGD_TEST_MAIN=1"), env...)
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

// startEnv runs `ragd run` with env added and waits for the start-up pass.
func (e *testEnv) startEnv(env ...string) *daemonProc {
	e.t.Helper()
	d := e.ragdEnv(env, "run", "-config", e.config)
	d.waitIdle(e.t)
	return d
}

// poll calls cond every 20 ms until it holds, for up to timeout; it fails
// the test with what (and the daemon's output) if it never does, or at
// once if the daemon exits.
func (d *daemonProc) poll(t *testing.T, timeout time.Duration, what func() string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-d.done:
			t.Fatalf("ragd exited while waiting for %s: %v\n%s", what(), d.err, d.out.String())
		default:
		}
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (d *daemonProc) status(t *testing.T) *ipc.StatusResponse {
	t.Helper()
	st, err := d.client.Status(context.Background())
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	return st
}

// waitVectors waits until the daemon is idle and every chunk has its
// vector.
func (d *daemonProc) waitVectors(t *testing.T) *ipc.StatusResponse {
	t.Helper()
	var st *ipc.StatusResponse
	d.poll(t, 3*time.Minute, func() string {
		if st == nil || st.Vector == nil {
			return "vector status"
		}
		return fmt.Sprintf("every chunk to be embedded (vector status %+v)", *st.Vector)
	}, func() bool {
		s, err := d.client.Status(context.Background())
		if err != nil {
			return false
		}
		st = s
		return s.State == ipc.StateIdle && reconciled(s) && s.Vector != nil && s.Vector.Pending == 0 && s.Vector.Vectors > 0
	})
	return st
}

// useliteModelDir returns the offline embedder's model directory at the
// repository root, skipping the test when `make models` has not fetched it
// (failing instead under RAGD_REQUIRE_MODELS=1).
func useliteModelDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(wd, "..", "..", "models", "use-lite")
	if _, err := os.Stat(filepath.Join(dir, "model.json")); err != nil {
		if os.Getenv("RAGD_REQUIRE_MODELS") == "1" {
			t.Fatalf("the uselite model is not in models/use-lite (%v): run make models", err)
		}
		t.Skip("the uselite model is not in models/use-lite: run `make models` to run this test (RAGD_REQUIRE_MODELS=1 makes this a failure)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// sourceFile returns the path of a file of the repository, relative to
// this package's directory.
func sourceFile(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

// copyTree copies the regular files under src into dst.
func copyTree(t *testing.T, src, dst string) {
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
		t.Fatal(err)
	}
}

// golden is one line of docs/example-vault-questions.tsv: a question and
// the files (any of them) that answer it.
type golden struct {
	question string
	want     []string
}

func readGolden(t *testing.T) []golden {
	t.Helper()
	f, err := os.Open(sourceFile("docs", "example-vault-questions.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []golden
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("questions file: no tab in %q", line)
		}
		out = append(out, golden{question: q, want: strings.Split(want, ";")})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("questions file is empty")
	}
	return out
}

// distinctPaths lists the distinct files of results, in rank order.
func distinctPaths(rs []ipc.Result) []string {
	var out []string
	for _, r := range rs {
		if !slices.Contains(out, r.Path) {
			out = append(out, r.Path)
		}
	}
	return out
}
