// Package peertest is the contract suite every peer engine passes: it runs
// the engine as a real ragd-peer subprocess (the test binary re-executed)
// over a small vault and checks building, searching, updates, deletions
// and reopening through the peer client.
package peertest

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ragd/ragd/bench/peer"
)

// childEnv marks the test binary re-executed as ragd-peer.
const childEnv = "RAGD_PEERTEST_CHILD"

// MainIfChild runs ragd-peer with open and exits when the test binary was
// started by Start; call it first in TestMain.
func MainIfChild(open peer.Opener) {
	if os.Getenv(childEnv) != "1" {
		return
	}
	os.Exit(peer.Main(os.Args[1:], open, os.Stdin, os.Stdout, os.Stderr))
}

// Start runs the test binary as ragd-peer for engine, indexing vault
// into (or opening it from) index.
func Start(t *testing.T, engine, index string, src peer.Source) *peer.Proc {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(childEnv, "1")
	p, err := peer.Start(self, peer.Args(engine, index, src))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Kill)
	return p
}

// Vault copies the package's testdata vault (four notes, a skipped
// .obsidian folder and a JSON file) to a temporary directory.
func Vault(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "testdata", "vault")
	dst := t.TempDir()
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// Search asks p and fails the test on an error.
func Search(t *testing.T, p *peer.Proc, q string, k int) []string {
	t.Helper()
	ids, err := p.Search(q, k)
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	return ids
}

// Run is the contract: engine over the testdata vault.
func Run(t *testing.T, engine string) {
	vault, index := Vault(t), t.TempDir()
	p := Start(t, engine, index, peer.Source{Vault: vault})
	if p.Ready.Engine != engine || p.Ready.Docs != 4 || p.Ready.Opened {
		t.Fatalf("ready %+v, want %s with 4 documents built", p.Ready, engine)
	}
	if got := Search(t, p, "restic unlock locked repository", 10); len(got) == 0 || got[0] != "journal/2024-03-14.md" {
		t.Errorf("restic unlock: %q, want journal/2024-03-14.md first", got)
	}
	if got := Search(t, p, "zpool scrub", 10); len(got) == 0 || got[0] != "projects/ZFS Pool.md" {
		t.Errorf("zpool scrub: %q, want projects/ZFS Pool.md first", got)
	}
	// Query syntax is never interpreted: quotes, operators, column
	// filters and stars are words or nothing.
	for _, q := range []string{`"AND" OR NOT NEAR(x y) title:zpool* ^scrub -`, `"`, "", "   ", "(((", "a:b"} {
		if _, err := p.Search(q, 10); err != nil {
			t.Errorf("search %q: %v", q, err)
		}
	}
	if got := Search(t, p, "snapshots backup restic", 1); len(got) != 1 {
		t.Errorf("k = 1 gave %q", got)
	}

	// An added note is searchable once Update returns; a deleted one is
	// gone.
	note := filepath.Join(vault, "projects", "Quokka.md")
	if err := os.WriteFile(note, []byte("# Quokka\n\nThe quokka lives on Qzxwvk island.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.Update("projects/Quokka.md"); err != nil {
		t.Fatal(err)
	}
	if got := Search(t, p, "quokka qzxwvk", 10); !slices.Equal(got, []string{"projects/Quokka.md"}) {
		t.Errorf("after adding: %q", got)
	}
	if err := os.WriteFile(note, []byte("# Quokka\n\nNow about Jjvwbq.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.Update("projects/Quokka.md"); err != nil {
		t.Fatal(err)
	}
	if got := Search(t, p, "qzxwvk", 10); len(got) != 0 {
		t.Errorf("after changing: qzxwvk still finds %q", got)
	}
	if got := Search(t, p, "jjvwbq", 10); !slices.Equal(got, []string{"projects/Quokka.md"}) {
		t.Errorf("after changing: jjvwbq finds %q", got)
	}
	if err := os.Remove(note); err != nil {
		t.Fatal(err)
	}
	if err := p.Update("projects/Quokka.md"); err != nil {
		t.Fatal(err)
	}
	if got := Search(t, p, "jjvwbq", 10); len(got) != 0 {
		t.Errorf("after deleting: %q", got)
	}
	if err := p.Update("../outside.md"); err == nil {
		t.Error("an update outside the vault was accepted")
	}
	if _, err := p.Close(); err != nil {
		t.Fatal(err)
	}

	// Reopened, the index is used as it is.
	p = Start(t, engine, index, peer.Source{Vault: vault})
	if !p.Ready.Opened || p.Ready.Docs != 4 {
		t.Errorf("reopened: ready %+v, want the 4 documents opened", p.Ready)
	}
	if got := Search(t, p, "scrub", 10); !slices.Equal(got, []string{"projects/ZFS Pool.md"}) {
		t.Errorf("reopened, scrub: %q", got)
	}
	if _, err := p.Close(); err != nil {
		t.Fatal(err)
	}
}
