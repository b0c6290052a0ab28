package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

// writeConfigTail writes a configuration with extra [daemon] keys, extra
// keys for the "notes" vault and a tail of further tables ([[plugin]],
// [search], more [[vault]]s).
func (e *testEnv) writeConfigTail(daemonExtra, vaultExtra, tail string) {
	e.WriteConfig(daemonExtra, vaultExtra, tail)
}

func (d *daemonProc) status(t *testing.T) *ipc.StatusResponse {
	t.Helper()
	st, err := d.Client.Status(context.Background())
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
	d.Poll(t, func() string {
		if st == nil || st.Vector == nil {
			return "vector status"
		}
		return fmt.Sprintf("every chunk to be embedded (vector status %+v)", *st.Vector)
	}, func() bool {
		s, err := d.Client.Status(context.Background())
		if err != nil {
			return false
		}
		st = s
		return s.State == ipc.StateIdle && ragdtest.Reconciled(s) && s.Vector != nil && s.Vector.Pending == 0 && s.Vector.Vectors > 0
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
