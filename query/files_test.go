package query

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
)

// filesFixture is a vault "notes" on disk with a.md (indexed as it is) and
// b.md (changed since indexing), and an index whose lexical channel finds
// both.
func filesFixture(t *testing.T) (*fakeIndex, string) {
	t.Helper()
	root := t.TempDir()
	write := func(rel, body string) *index.Document {
		p := filepath.Join(root, rel)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(body))
		return &index.Document{Vault: "notes", Path: rel, Size: fi.Size(), ModTime: fi.ModTime().UTC(),
			Hash: hex.EncodeToString(sum[:]), Status: index.StatusOK}
	}
	f := newFakeIndex()
	a := write("a.md", "l1\nl2\nl3\nl4\nl5\n")
	b := write("b.md", "old text\n")
	b.Hash, b.Size = "0000", 3 // indexed from other bytes
	f.docs = map[[2]string]*index.Document{{"notes", "a.md"}: a, {"notes", "b.md"}: b}
	h1, h2 := hit(2, "notes", "a.md", 9), hit(3, "notes", "b.md", 5)
	h1.LineStart, h1.LineEnd = 2, 4
	h2.LineStart, h2.LineEnd = 1, 1
	f.lex = []index.Hit{h1, h2}
	return f, root
}

func TestResultsCiteFilesOnDisk(t *testing.T) {
	f, root := filesFixture(t)
	e := NewEngine(f).WithVaults(map[string]string{"notes": root})
	resp := mustSearch(t, e, Request{Text: "x", K: 5})
	if len(resp.Results) != 2 {
		t.Fatalf("results %v", paths(resp.Results))
	}
	a, b := resp.Results[0], resp.Results[1]
	if a.AbsPath != filepath.Join(root, "a.md") || a.Stale || !b.Stale {
		t.Errorf("a = %s stale %v, b stale %v", a.AbsPath, a.Stale, b.Stale)
	}
	// Context quotes a's lines from the file and keeps b's indexed text.
	_, block, err := e.Context(context.Background(), Request{Text: "x", K: 5}, ContextOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(block.Text, "l2\nl3\nl4") || strings.Contains(block.Text, "old text") ||
		!strings.Contains(block.Text, "text of "+refOf(3).String()) {
		t.Errorf("block:\n%s", block.Text)
	}
	// Without vault roots nothing is checked.
	resp = mustSearch(t, NewEngine(f), Request{Text: "x", K: 5})
	if r := resp.Results[1]; r.AbsPath != "" || r.Stale {
		t.Errorf("without roots: %+v", r)
	}
}

func TestUnknownVaultIsNotFound(t *testing.T) {
	f, root := filesFixture(t)
	e := NewEngine(f).WithVaults(map[string]string{"notes": root})
	_, err := e.Search(context.Background(), Request{Text: "x", K: 5, Vaults: []string{"nope"}})
	var ie *ipc.Error
	if !errors.As(err, &ie) || ie.Status != 404 {
		t.Errorf("Search in an unknown vault: %v", err)
	}
}

func TestResolveNote(t *testing.T) {
	f, root := filesFixture(t)
	f.docs[[2]string{"work", "a.md"}] = &index.Document{Vault: "work", Path: "a.md"}
	e := NewEngine(f).WithVaults(map[string]string{"notes": root, "work": "/elsewhere"})
	for _, c := range []struct {
		vault, path  string
		wantV, wantP string
		status       int
	}{
		{"", filepath.Join(root, "sub", "x.md"), "notes", "sub/x.md", 0},
		{"", "/nowhere/x.md", "", "", 404},
		{"", "./b.md", "notes", "b.md", 0},
		{"", "a.md", "", "", 400}, // in two vaults
		{"work", "a.md", "work", "a.md", 0},
		{"nope", "a.md", "", "", 404},
		{"", "missing.md", "", "", 404},
	} {
		v, p, err := e.ResolveNote(c.vault, c.path)
		var ie *ipc.Error
		switch {
		case c.status != 0 && (!errors.As(err, &ie) || ie.Status != c.status):
			t.Errorf("ResolveNote(%q, %q) error = %v, want status %d", c.vault, c.path, err, c.status)
		case c.status == 0 && (err != nil || v != c.wantV || p != c.wantP):
			t.Errorf("ResolveNote(%q, %q) = %q %q %v", c.vault, c.path, v, p, err)
		}
	}
}
