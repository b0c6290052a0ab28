package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ragd check-config reports every problem of a file at once, each with
// the file, line and key: a misspelt built-in (with a suggestion, not a Go
// slice), a built-in missing a required option, an unknown option, next to
// an ordinary error. ragd run refuses the file the same way, once.
func TestCheckConfigReportsEveryProblem(t *testing.T) {
	e := newEnv(t, nil, "")
	file := filepath.Join(e.Root, "bad.toml")
	err := os.WriteFile(file, []byte(`[daemon]
socket = "`+e.Socket+`"

[[vault]]
name = "v"
path = "missing"

[[plugin]]
name = "a"
kind = "embedder"
builtin = "uselight"

[[plugin]]
name = "b"
kind = "embedder"
builtin = "ollama"

[[plugin]]
name = "c"
kind = "embedder"
builtin = "uselite"
[plugin.options]
model_dri = "/x"

[search]
embedder = "a"
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		file + `:6: vault[0].path: "missing" does not exist`,
		file + `:11: plugin[0].builtin: unknown built-in "uselight" (did you mean "uselite"?)`,
		file + `:16: plugin[1].builtin: httpembed: option "model" is required`,
		file + `:23: plugin[2].options.model_dri: uselite: unknown option "model_dri" (known: model_dir`,
	}
	for _, args := range [][]string{{"check-config", "-config", file}, {"run", "-config", file}} {
		cmd := exec.Command(filepath.Join(bin, "ragd"), args...)
		cmd.Env = e.environ()
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
			t.Errorf("ragd %s: %v, want exit 1", args[0], err)
		}
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != len(want) {
			t.Errorf("ragd %s: %d lines, want %d:\n%s", args[0], len(lines), len(want), out)
			continue
		}
		for i, w := range want {
			if !strings.HasPrefix(lines[i], w) {
				t.Errorf("ragd %s, line %d:\n got %s\nwant %s…", args[0], i+1, lines[i], w)
			}
		}
		if strings.Contains(string(out), "[") && strings.Contains(string(out), "]string") {
			t.Errorf("a Go slice in the output:\n%s", out)
		}
	}
	// ragctl doctor relays them.
	code, out, _ := e.ragctl("doctor", "-config", file)
	mustContain(t, "doctor", out, `unknown built-in "uselight"`, `option "model" is required`, `unknown option "model_dri"`)
	if code != 1 {
		t.Errorf("doctor: exit %d, want 1", code)
	}
}
