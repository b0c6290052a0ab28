package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `:help ragd` works after the contrib/README install by hand: runtimepath
// plus the helptags step.
func TestNeovimHelpAfterReadmeInstall(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("RAGD_REQUIRE_EDITORS") != "" {
			t.Fatal("nvim is not installed")
		}
		t.Skip("nvim is not installed")
	}
	dir := filepath.Join(t.TempDir(), "nvim")
	if out, err := exec.Command("cp", "-r", filepath.Join("..", "contrib", "nvim"), dir).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	os.Remove(filepath.Join(dir, "doc", "tags"))
	cmd := exec.Command(nvim, "--headless", "--clean",
		"-c", "set runtimepath+="+dir,
		"-c", "helptags "+filepath.Join(dir, "doc"),
		"-c", "try | help ragd | echo 'HELP:' . expand('%:t') | catch | echo 'FAILED:' . v:exception | endtry",
		"-c", "qa!")
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "HELP:ragd.txt") {
		t.Errorf(":help ragd after the README's steps: %s", out)
	}
}
