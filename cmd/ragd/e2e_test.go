package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/ipc"
)

var notes = map[string]string{
	"Restic Backups.md": `---
tags: [homelab, backup]
aliases: [backups]
---
# Restic Backups

Nightly snapshots of the NAS go to two repositories.

## Retention policy

Keep 7 daily, 5 weekly and 12 monthly snapshots; prune on Sundays.

## Restore drill

Once a quarter, restore one folder to /tmp and diff it.
`,
	"recipes/Sourdough.md": `# Sourdough starter

Feed the starter at 100% hydration: equal weights of flour and water.

## Schedule

Discard half, feed, wait until it doubles, then bake.
`,
	"inbox.txt": "Call the plumber about the dripping kitchen tap.\n\nRenew the passport before the Lisbon trip.\n",
}

// lines returns lines [from, to] (1-based, inclusive) of a vault file.
func (e *testEnv) lines(rel string, from, to int) string {
	b, err := os.ReadFile(filepath.Join(e.Vault, filepath.FromSlash(rel)))
	if err != nil {
		e.T.Fatal(err)
	}
	ls := strings.Split(string(b), "\n")
	if from < 1 || to > len(ls) || from > to {
		e.T.Fatalf("%s: bad line range %d-%d of %d lines", rel, from, to, len(ls))
	}
	return strings.Join(ls[from-1:to], "\n")
}

func TestEndToEndSearchEditReindex(t *testing.T) {
	e := newEnv(t, notes)
	d := e.start()

	st, err := d.Client.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Vaults) != 1 || st.Vaults[0].Documents != 3 || st.Vaults[0].Failed != 0 || st.Vaults[0].Chunks < 5 {
		t.Fatalf("status vaults = %+v", st.Vaults)
	}

	rs := d.search(t, "how many monthly snapshots do we keep")
	if len(rs) == 0 || rs[0].Path != "Restic Backups.md" || rs[0].Heading != "Restic Backups > Retention policy" {
		t.Fatalf("results = %+v", rs)
	}
	// Citations point at text that is really there.
	for _, r := range rs {
		if cited := e.lines(r.Path, r.LineStart, r.LineEnd); !strings.Contains(cited, r.Text) {
			t.Errorf("%s:L%d-L%d holds %q, not the result text %q", r.Path, r.LineStart, r.LineEnd, cited, r.Text)
		}
		if r.AbsPath != filepath.Join(e.Vault, filepath.FromSlash(r.Path)) {
			t.Errorf("abs path %q", r.AbsPath)
		}
	}
	// Frontmatter is not body text.
	if rs := d.search(t, "aliases"); len(rs) != 0 {
		t.Errorf("frontmatter indexed: %+v", rs)
	}
	// Scope filters.
	resp, err := d.Client.Search(context.Background(), ipc.SearchRequest{Query: "flour water snapshots", PathPrefix: "recipes/"})
	if err != nil || paths(resp.Results) != "recipes/Sourdough.md" {
		t.Fatalf("path-scoped search = %v, %v", paths(resp.Results), err)
	}
	if _, err := d.Client.Search(context.Background(), ipc.SearchRequest{Query: "x", Vaults: []string{"nope"}}); err == nil {
		t.Fatal("unknown vault accepted")
	}

	// Edit, delete, add; then a waited reindex.
	e.write("recipes/Sourdough.md", "# Sourdough starter\n\nRye flour makes a livelier starter.\n")
	os.Remove(filepath.Join(e.Vault, "inbox.txt"))
	e.write("Lisbon.md", "# Lisbon\n\nTram 28 rattles up to the castle.\n")
	rr, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Vaults) != 1 || rr.Vaults[0].Indexed != 2 || rr.Vaults[0].Removed != 1 || rr.Vaults[0].Unchanged != 1 {
		t.Fatalf("reindex = %+v", rr)
	}
	if got := paths(d.search(t, "rye")); got != "recipes/Sourdough.md" {
		t.Errorf("rye → %q", got)
	}
	if got := paths(d.search(t, "hydration")); got != "" {
		t.Errorf("old text still found: %q", got)
	}
	if got := paths(d.search(t, "plumber")); got != "" {
		t.Errorf("deleted file still found: %q", got)
	}
	if got := paths(d.search(t, "tram castle")); got != "Lisbon.md" {
		t.Errorf("new file: %q", got)
	}

	// Reindex of one path.
	e.write("Lisbon.md", "# Lisbon\n\nPastel de nata at Belém.\n")
	e.write("recipes/Bagels.md", "# Bagels\n\nBoil before baking.\n")
	rr, err = d.Client.Reindex(context.Background(), ipc.ReindexRequest{Path: "Lisbon.md", Wait: true})
	if err != nil || rr.Vaults[0].Indexed != 1 {
		t.Fatalf("path reindex = %+v, %v", rr, err)
	}
	if got := paths(d.search(t, "boil bagels")); got != "" {
		t.Errorf("a path reindex indexed another file: %q", got)
	}
	if got := paths(d.search(t, "nata")); got != "Lisbon.md" {
		t.Errorf("nata → %q", got)
	}
	d.Stop(t)

	// A restart skips unchanged files and picks up what changed while down.
	e.write("recipes/Bagels.md", "# Bagels\n\nBoil in malted water before baking.\n")
	d = e.start()
	if got := paths(d.search(t, "malted")); got != "recipes/Bagels.md" {
		t.Errorf("after restart: %q", got)
	}
	if !strings.Contains(d.Output(), "unchanged=3") {
		t.Errorf("restart did not skip unchanged files:\n%s", d.Output())
	}
	d.Stop(t)
}

func TestBadFilesAreSkippedWithReasons(t *testing.T) {
	e := newEnv(t, map[string]string{
		"good.md":   "# Good\n\nzucchini bread\n",
		"empty.md":  "",
		"binary.md": "\x00\x01\x02ELF",
		"latin1.md": "caf\xe9",
		"big.md":    strings.Repeat("word ", 300000),
		"locked.md": "# Locked\n\nsecret\n",
	})
	if os.Getuid() != 0 {
		os.Chmod(filepath.Join(e.Vault, "locked.md"), 0)
	}
	e.writeConfig("max_file_mb = 1\n")
	d := e.start()
	st, err := d.Client.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, f := range st.Vaults[0].FailedFiles {
		reasons[f.Path] = f.Error
	}
	want := map[string]string{"empty.md": "empty", "binary.md": "binary", "latin1.md": "UTF-8", "big.md": "max_file_mb"}
	if os.Getuid() != 0 {
		want["locked.md"] = "unreadable"
	}
	for p, w := range want {
		if !strings.Contains(reasons[p], w) {
			t.Errorf("%s: reason %q, want it to mention %q", p, reasons[p], w)
		}
	}
	if st.Vaults[0].Failed != len(want) {
		t.Errorf("failed = %d, want %d (%v)", st.Vaults[0].Failed, len(want), reasons)
	}
	if got := paths(d.search(t, "zucchini")); got != "good.md" {
		t.Errorf("daemon not serving after bad files: %q", got)
	}
	d.Stop(t)
}

func TestDaemonNeverWritesIntoTheVault(t *testing.T) {
	e := newEnv(t, notes)
	before := snapshotTree(t, e.Vault)
	d := e.start()
	d.search(t, "snapshots")
	if _, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Wait: true}); err != nil {
		t.Fatal(err)
	}
	d.Stop(t)
	if after := snapshotTree(t, e.Vault); after != before {
		t.Errorf("vault changed:\nbefore %s\nafter  %s", before, after)
	}
}

// snapshotTree lists every entry under dir with its size and mtime.
func snapshotTree(t *testing.T, dir string) string {
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		b.WriteString(p + " " + fi.Mode().String() + " " + fi.ModTime().String() + "\n")
		return nil
	})
	return b.String()
}
