//go:build unix

package contract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/contract"
	"github.com/ragd/ragd/plugins/host"
)

// nodeExample is the Node example plugin, relative to this package.
var nodeExample = filepath.Join("..", "..", "contrib", "plugins", "org-extractor")

const orgSample = `#+TITLE: Garden
#+AUTHOR: Ada

* TODO Tomatoes :veg:
Water *deeply* twice a /week/; see [[https://orgmode.org][Org]].
:PROPERTIES:
:ID: 42
:END:
** Varieties
- San Marzano
- Brandywine
#+BEGIN_SRC sh
echo *not bold*
#+END_SRC
`

// TestNodeOrgExtractor runs the extractor contract against the Node
// example plugin, started by the host as a real subprocess. It installs
// the plugin's dependencies (npm ci) in a temporary copy when the example
// has no node_modules, and skips when node or npm is missing unless
// RAGD_REQUIRE_NODE=1.
func TestNodeOrgExtractor(t *testing.T) {
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		if os.Getenv("RAGD_REQUIRE_NODE") == "1" {
			t.Fatalf("RAGD_REQUIRE_NODE=1 but node or npm is missing: %v %v", errNode, errNpm)
		}
		t.Skip("SKIP: node or npm not found, the Node example plugin is not tested (RAGD_REQUIRE_NODE=1 makes this a failure)")
	}
	dir, err := filepath.Abs(nodeExample)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		dir = npmCI(t, npm, dir)
	}

	t.Run("unit", func(t *testing.T) {
		cmd := exec.Command(node, "--test", "test/org.test.js")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("node --test: %v\n%s", err, out)
		}
	})

	spec := host.Spec{
		Name:            "org",
		Kind:            plugins.KindExtractor,
		Command:         node,
		Args:            []string{filepath.Join(dir, "index.js")},
		DisableAutoMTLS: true,
		Options:         plugins.Options{"strip_todo": true},
		Timeout:         20 * time.Second,
	}
	withMTLS := spec
	withMTLS.Name, withMTLS.DisableAutoMTLS = "org-mtls", false
	var logs lockedBuffer
	m, err := host.New([]host.Spec{spec, withMTLS}, host.Config{
		Logger: slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	var pid int
	for _, st := range m.Status() {
		switch st.Name {
		case "org":
			if st.State != ipc.PluginRunning {
				t.Fatalf("node plugin: %s: %s", st.State, st.LastError)
			}
			pid = st.PID
		case "org-mtls":
			if st.State == ipc.PluginRunning || !strings.Contains(st.LastError, "auto_mtls = false") {
				t.Errorf("node plugin with AutoMTLS: %s: %q", st.State, st.LastError)
			}
		}
	}
	h, err := m.Extractor("org")
	if err != nil {
		t.Fatal(err)
	}
	contract.TestExtractor(t, h, contract.Sample{
		Path:         "notes/garden.org",
		Data:         []byte(orgSample),
		WantTitle:    "Garden",
		WantContains: []string{"\n# Tomatoes\n", "Water **deeply** twice a *week*; see [Org](https://orgmode.org).", "\n## Varieties\n", "```sh\necho *not bold*\n```"},
		WantLines:    strings.Count(orgSample, "\n"),
	})
	x, err := h.Extract(context.Background(), plugins.ExtractRequest{Path: "g.org", Data: []byte(orgSample)})
	if err != nil {
		t.Fatal(err)
	}
	if x.Format != plugins.FormatMarkdown || x.Metadata["author"] != "Ada" || x.Metadata["tags"] != "veg" {
		t.Errorf("extraction: format %q metadata %v", x.Format, x.Metadata)
	}

	m.Close()
	// The plugin honoured the graceful Shutdown: it exited by itself, it
	// was not killed when the grace period ran out.
	if exit := stopExit(t, logs.String(), "org"); exit != "exit status 0" {
		t.Errorf("the Node plugin stopped with %q, want a graceful exit (exit status 0)", exit)
	}
	if processAlive(pid) {
		t.Errorf("node plugin %d alive after Close", pid)
	}
}

// npmCI copies the example (without node_modules) to a temporary
// directory and installs its locked dependencies there.
func npmCI(t *testing.T, npm, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "org-extractor")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && d.Name() == "node_modules" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
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
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dst
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
	return dst
}

// stopExit returns how the host says a plugin's process ended when it was
// closed ("plugin stopped": "exit status 0" after a graceful shutdown).
func stopExit(t *testing.T, jsonLog, plugin string) string {
	t.Helper()
	for _, line := range strings.Split(jsonLog, "\n") {
		var r map[string]any
		if json.Unmarshal([]byte(line), &r) == nil && r["msg"] == "plugin stopped" && r["plugin"] == plugin {
			s, _ := r["exit"].(string)
			return s
		}
	}
	t.Fatalf("no \"plugin stopped\" record for %s in the log:\n%s", plugin, jsonLog)
	return ""
}

// lockedBuffer is a log destination written from several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
