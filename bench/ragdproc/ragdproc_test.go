package ragdproc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

func TestIdle(t *testing.T) {
	now := time.Now()
	reconciled := []ipc.VaultStatus{{LastReconcile: &now}}
	for _, tt := range []struct {
		name string
		st   ipc.StatusResponse
		want bool
	}{
		{"idle", ipc.StatusResponse{State: ipc.StateIdle, Vaults: reconciled}, true},
		{"indexing", ipc.StatusResponse{State: ipc.StateIndexing, Vaults: reconciled}, false},
		{"not reconciled", ipc.StatusResponse{State: ipc.StateIdle, Vaults: []ipc.VaultStatus{{}}}, false},
		{"vectors pending", ipc.StatusResponse{State: ipc.StateIdle, Vaults: reconciled, Vector: &ipc.VectorStatus{Pending: 3, Signature: "s"}}, false},
		{"no signature yet", ipc.StatusResponse{State: ipc.StateIdle, Vaults: reconciled, Vector: &ipc.VectorStatus{}}, false},
		{"embedded", ipc.StatusResponse{State: ipc.StateIdle, Vaults: reconciled, Vector: &ipc.VectorStatus{Signature: "s"}}, true},
	} {
		if got := Idle(&tt.st); got != tt.want {
			t.Errorf("%s: Idle = %v", tt.name, got)
		}
	}
}

func TestWriteConfig(t *testing.T) {
	dir := t.TempDir()
	if err := WriteConfig(dir, "vault", "\n[search]\nreranker = \"none\"\n"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "ragd.toml"))
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs("vault")
	for _, want := range []string{`socket = "` + filepath.Join(dir, "ragd.sock") + `"`, `data_dir = "` + DataDir(dir) + `"`, `path = "` + abs + `"`, "reranker = \"none\""} {
		if !strings.Contains(string(b), want) {
			t.Errorf("config lacks %s:\n%s", want, b)
		}
	}
}
