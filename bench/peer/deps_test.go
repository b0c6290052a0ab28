package peer

import (
	"os/exec"
	"strings"
	"testing"
)

// TestEnginesStayOut keeps the peer engines out of ragd's and ragctl's
// binaries: they run only in ragd-peer.
func TestEnginesStayOut(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	for _, pkg := range []string{"github.com/ragd/ragd/cmd/ragd", "github.com/ragd/ragd/cmd/ragctl"} {
		out, err := exec.Command(goBin, "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, engine := range []string{"modernc.org/sqlite", "github.com/blevesearch/", "github.com/ragd/ragd/bench/peer/"} {
				if dep == engine || strings.HasPrefix(dep, engine) {
					t.Errorf("%s links %s", pkg, dep)
				}
			}
		}
	}
}
