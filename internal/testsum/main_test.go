package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// make test's pipe: `go test -json` of a module with passing, skipped
// (a test and a subtest) and failing tests, through testsum, prints the
// failure's output and one line naming each skipped test and its reason,
// and exits 1.
func TestSummary(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not in PATH")
	}
	dir := t.TempDir()
	sum := filepath.Join(dir, "testsum")
	if out, err := exec.Command(goBin, "build", "-o", sum, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mod := filepath.Join(dir, "mod")
	files := map[string]string{
		"go.mod": "module example.com/sum\n\ngo 1.21\n",
		"a/a_test.go": `package a

import "testing"

func TestPasses(t *testing.T) {}

func TestNeedsTool(t *testing.T) { t.Skip("frobnicate is not installed") }

func TestEditors(t *testing.T) {
	t.Run("nvim", func(t *testing.T) { t.Skipf("nvim is not installed: skipping") })
	t.Run("emacs", func(t *testing.T) {})
}

func TestBreaks(t *testing.T) { t.Log("the answer was 41"); t.Fail() }
`,
		"b/b_test.go": "package b\n\nimport \"testing\"\n\nfunc TestFine(t *testing.T) {}\n",
	}
	for name, body := range files {
		p := filepath.Join(mod, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gotest := exec.Command(goBin, "test", "-json", "./...")
	gotest.Dir = mod
	var events bytes.Buffer
	gotest.Stdout = &events
	gotest.Run() // fails: TestBreaks
	cmd := exec.Command(sum)
	cmd.Stdin = &events
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("testsum: %v, want exit 1 for the failure", err)
	}
	for _, want := range []string{
		"the answer was 41",
		"ok  \texample.com/sum/b",
		"skipped 2: TestEditors/nvim (example.com/sum/a): nvim is not installed: skipping; " +
			"TestNeedsTool (example.com/sum/a): frobnicate is not installed\n",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "TestPasses") {
		t.Errorf("a passing test is named:\n%s", out)
	}
}
