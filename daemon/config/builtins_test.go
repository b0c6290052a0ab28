package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeBuiltins knows an embedder "uselite" (whose model may be missing)
// and "ollama" (which requires option "model").
type fakeBuiltins struct{ modelMissing bool }

func (fakeBuiltins) Kind(name string) (string, bool) {
	switch name {
	case "uselite", "ollama":
		return "embedder", true
	case "pdf":
		return "extractor", true
	}
	return "", false
}

func (fakeBuiltins) Names() []string { return []string{"ollama", "pdf", "uselite"} }

func (f fakeBuiltins) Check(name string, opts map[string]any) error {
	for k := range opts {
		if k != "model" && k != "model_dir" {
			return fmt.Errorf("%s: unknown option %q (known: model, model_dir)", name, k)
		}
	}
	switch {
	case name == "ollama" && opts["model"] == nil:
		return errors.New(`httpembed: option "model" is required`)
	case name == "uselite" && f.modelMissing:
		return errors.New("uselite: model not found (looked in /x): `make install` installs it")
	}
	return nil
}

// Built-in problems are found with the others, each with its line and key.
func TestBuiltinProblems(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "ragd.toml")
	toml := `[[vault]]
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

[[plugin]]
name = "d"
kind = "reranker"
builtin = "pdf"

[[plugin]]
name = "e"
kind = "embedder"
builtin = "uselite"
`
	if err := os.WriteFile(file, []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadWith(file, fakeBuiltins{modelMissing: true})
	var got []string
	for _, e := range AsErrors(err) {
		got = append(got, fmt.Sprintf("%d %s: %s", e.Line, e.Key, e.Msg))
	}
	want := []string{
		`3 vault[0].path: "missing" does not exist (resolved to ` + fmt.Sprintf("%q", filepath.Join(dir, "missing")) + `)`,
		`8 plugin[0].builtin: unknown built-in "uselight" (did you mean "uselite"?); built in: ollama, pdf, uselite`,
		`13 plugin[1].builtin: httpembed: option "model" is required`,
		`20 plugin[2].options.model_dri: uselite: unknown option "model_dri" (known: model, model_dir)`,
		`25 plugin[3].builtin: built-in "pdf" is an extractor, not a reranker`,
		"30 plugin[4].builtin: uselite: model not found (looked in /x): `make install` installs it",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Without Builtins (ragctl) these are not checked.
	_, err = Load(file)
	if n := len(AsErrors(err)); n != 1 {
		t.Errorf("Load without builtins: %d problems: %v", n, err)
	}
}

// subprocess = true is kept for a built-in and refused for a command
// (which always runs as a subprocess).
func TestPluginSubprocess(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ragd.toml")
	load := func(toml string) (*Config, error) {
		t.Helper()
		if err := os.WriteFile(file, []byte(toml), 0o644); err != nil {
			t.Fatal(err)
		}
		return Load(file)
	}
	cfg, err := load(`[[plugin]]
name = "heuristic"
kind = "reranker"
builtin = "heuristic"
subprocess = true

[[plugin]]
name = "pdf"
kind = "extractor"
builtin = "pdf"
`)
	if err != nil || len(cfg.Plugins) != 2 || !cfg.Plugins[0].Subprocess || cfg.Plugins[1].Subprocess {
		t.Fatalf("Load = %+v, %v", cfg, err)
	}
	_, err = load(`[[plugin]]
name = "org"
kind = "extractor"
command = "org-extractor"
subprocess = true

[[plugin]]
name = "pdf"
kind = "extractor"
builtin = "pdf"
subprocess = "yes"
`)
	var got []string
	for _, e := range AsErrors(err) {
		got = append(got, fmt.Sprintf("%d %s: %s", e.Line, e.Key, e.Msg))
	}
	want := []string{
		"5 plugin[0].subprocess: only for a built-in: a command always runs as a subprocess",
		"11 plugin[1].subprocess: expected true or false, got " + describe("yes"),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
