package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps ragctl a thin client: it must not link the index, its
// storage engine, the vector index or the plugin host, which would make
// the CLI binary large and slow to start.
func TestDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	const pkg = "github.com/ragd/ragd/cmd/ragctl"
	cmd := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}", pkg)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr.Bytes())
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 || deps[len(deps)-1] != pkg {
		t.Fatalf("go list -deps output does not end with %s: %q", pkg, deps)
	}

	forbidden := []struct{ path, why string }{
		{"github.com/dgraph-io/badger", "the index store"},
		{"github.com/coder/hnsw", "the vector index"},
		{"github.com/hashicorp/go-plugin", "the plugin host"},
		{"github.com/ragd/ragd/index", "the index package, which pulls Badger"},
	}
	for _, dep := range deps {
		for _, f := range forbidden {
			// A module path matches itself, its major versions
			// (badger/v4) and its packages. Of ragd's index only the
			// package itself is named: the pure subpackages the config
			// validates against (analysis languages, field defaults) are
			// allowed, and anything of them that pulled Badger would be
			// caught by its own entry.
			sub := strings.HasPrefix(dep, f.path+"/") && !strings.HasPrefix(f.path, "github.com/ragd/")
			if dep == f.path || sub {
				t.Errorf("ragctl imports %s (%s)", dep, f.why)
			}
		}
	}
}
