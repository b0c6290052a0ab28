package main

// End-to-end tests of live watching: each one runs the real daemon on a
// temp vault, changes the vault on disk, and checks what search and status
// (and, where it matters, runs and events) report afterwards. Nothing here
// sleeps a fixed time to see something happen: waitFor polls, and the
// absence of something is asserted only after a later, positive marker
// (a sentinel note) has shown up.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

func TestWatchCreateModifyDelete(t *testing.T) {
	e := newEnv(t, notes)
	d := e.startWatching()
	d.wantDocs(t, 3)

	e.write("Fresh.md", "# Fresh\n\nThe wombat sleeps under the porch.\n")
	d.waitFound(t, "wombat", "Fresh.md")
	d.wantDocs(t, 4)

	e.write("Fresh.md", "# Fresh\n\nThe capybara swims in the pond.\n")
	d.waitFound(t, "capybara", "Fresh.md")
	if got := d.found(t, "wombat"); got != "" {
		t.Errorf("old text still found after the edit: %q", got)
	}
	d.wantDocs(t, 4)

	if err := os.Remove(e.abs("Fresh.md")); err != nil {
		t.Fatal(err)
	}
	d.waitFound(t, "capybara", "")
	d.wantDocs(t, 3)
	if got := d.found(t, "sourdough"); got != "recipes/Sourdough.md" {
		t.Errorf("untouched note: %q", got)
	}
	d.Stop(t)
}

func TestWatchRenameFile(t *testing.T) {
	e := newEnv(t, notes)
	d := e.startWatching()
	mustRename(t, e.abs("recipes/Sourdough.md"), e.abs("recipes/Levain.md"))
	d.waitFound(t, "hydration", "recipes/Levain.md")
	d.wantDocs(t, 3)
	// Moved to another folder too.
	mustRename(t, e.abs("inbox.txt"), e.abs("recipes/inbox.txt"))
	d.waitFound(t, "plumber", "recipes/inbox.txt")
	d.wantDocs(t, 3)
	d.Stop(t)
}

func TestWatchRenameFolder(t *testing.T) {
	e := newEnv(t, map[string]string{
		"proj/one.md":       "# One\n\nThe pelican project.\n",
		"proj/two.md":       "# Two\n\nThe pelican budget.\n",
		"proj/sub/three.md": "# Three\n\nThe pelican timeline.\n",
		"other.md":          "# Other\n\nNothing to see.\n",
	})
	d := e.startWatching()
	if got := d.found(t, "pelican"); got != "proj/one.md,proj/sub/three.md,proj/two.md" {
		t.Fatalf("before: %q", got)
	}
	mustRename(t, e.abs("proj"), e.abs("archive"))
	d.waitFound(t, "pelican", "archive/one.md,archive/sub/three.md,archive/two.md")
	d.wantDocs(t, 4)
	resp, err := d.Client.Search(context.Background(), ipc.SearchRequest{Query: "pelican", PathPrefix: "proj/"})
	if err != nil || len(resp.Results) != 0 {
		t.Errorf("old folder still searchable: %v, %v", paths(resp.Results), err)
	}

	// The renamed folder, and the folder inside it, are watched.
	e.write("archive/sub/four.md", "# Four\n\nThe flamingo appendix.\n")
	d.waitFound(t, "flamingo", "archive/sub/four.md")
	e.write("archive/five.md", "# Five\n\nThe heron appendix.\n")
	d.waitFound(t, "heron", "archive/five.md")
	d.wantDocs(t, 6)
	d.Stop(t)
}

func TestWatchAtomicSave(t *testing.T) {
	e := newEnv(t, map[string]string{"note.md": "# Note\n\nThe original mentions a walrus.\n"})
	d := e.startWatching()
	d.wantDocs(t, 1)
	// What editors do: write a temp file next to the note, rename it over.
	e.write(".note.md.tmp", "# Note\n\nThe saved version mentions an ocelot.\n")
	mustRename(t, e.abs(".note.md.tmp"), e.abs("note.md"))
	d.waitFound(t, "ocelot", "note.md")
	if got := d.found(t, "walrus"); got != "" {
		t.Errorf("old content still found: %q", got)
	}
	d.wantDocs(t, 1)
	d.Stop(t)
}

func TestWatchBurstIsDebounced(t *testing.T) {
	e := newEnv(t, map[string]string{"other.md": "# Other\n\nA quiet note.\n"})
	// The loop below is slow under -race: a 300 ms quiet period keeps it
	// one burst.
	e.writeConfigWith(`debounce = "300ms"`, "")
	d := e.startWatching()
	before := time.Now().UTC()
	p := e.abs("burst.md")
	for i := range 1000 {
		body := fmt.Sprintf("# Burst\n\nIteration %d of the hummingbird burst.\n", i)
		if i == 999 {
			body = "# Burst\n\nThe final version names a flamingo.\n"
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d.waitFound(t, "flamingo", "burst.md")
	d.waitFound(t, "hummingbird", "")
	// Runs are recorded when they end: wait for the pass to finish.
	d.WaitIdle(t)
	d.wantDocs(t, 2)

	// The watcher merges the burst's ~2,000 events into one batch once the
	// file has been quiet for the debounce period (bounded by the 2 s max
	// delay), and the job queue merges batches waiting for the same vault;
	// so the burst costs one reindex, maybe two or three if the loop
	// stalled or a pass read the file mid-burst, never hundreds. Quiet
	// watch runs (nothing changed) are not recorded.
	runs, err := d.Client.Runs(context.Background(), 50)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, r := range runs.Runs {
		if r.Trigger == "watch" && !r.Start.Before(before) && r.Indexed+r.Failed > 0 {
			n++
		}
	}
	if n < 1 || n > 3 {
		t.Errorf("%d watch runs indexed the burst, want 1 to 3: %+v", n, runs.Runs)
	}
	d.Stop(t)
}

func TestWatchNestedDirectories(t *testing.T) {
	e := newEnv(t, notes)
	d := e.startWatching()
	if err := os.MkdirAll(e.abs("x/y/z"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.abs("x/y/z/deep.md"), []byte("# Deep\n\nThe anglerfish lives down here.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d.waitFound(t, "anglerfish", "x/y/z/deep.md")
	d.wantDocs(t, 4)
	// The directories created with it are watched.
	e.write("x/y/later.md", "# Later\n\nThe nautilus arrived later.\n")
	d.waitFound(t, "nautilus", "x/y/later.md")
	e.write("x/y/z/deeper.md", "# Deeper\n\nThe isopod arrived last.\n")
	d.waitFound(t, "isopod", "x/y/z/deeper.md")
	d.wantDocs(t, 6)
	d.Stop(t)
}

func TestWatchExcludedPaths(t *testing.T) {
	e := newEnv(t, notes)
	e.writeConfig("exclude = [\"private/**\"]\n")
	d := e.startWatching()
	e.write("private/secret.md", "# Secret\n\nThe pangolin password.\n")
	e.write("private/deeper/more.md", "# More\n\nThe pangolin pin.\n")
	e.write(".obsidian/x.md", "# Workspace\n\nThe armadillo layout.\n")
	e.write("projects/.obsidian/y.md", "# Nested\n\nThe armadillo layout again.\n")
	e.write("sentinel.md", "# Sentinel\n\nThe meerkat keeps watch.\n")
	d.waitFound(t, "meerkat", "sentinel.md")
	if got := d.found(t, "pangolin"); got != "" {
		t.Errorf("excluded private/ indexed: %q", got)
	}
	if got := d.found(t, "armadillo"); got != "" {
		t.Errorf(".obsidian indexed: %q", got)
	}
	d.wantDocs(t, 4) // no failed files either

	// A file written into the (unwatched) excluded folder later is not
	// picked up either; nor by a full reconcile.
	e.write("private/later.md", "# Later\n\nThe pangolin again.\n")
	e.write("sentinel2.md", "# Sentinel\n\nThe mongoose keeps watch.\n")
	d.waitFound(t, "mongoose", "sentinel2.md")
	if _, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Wait: true}); err != nil {
		t.Fatal(err)
	}
	if got := d.found(t, "pangolin armadillo"); got != "" {
		t.Errorf("excluded files indexed: %q", got)
	}
	d.wantDocs(t, 5)
	d.Stop(t)
}

// symlinkOutside builds, outside the vault, a file and a folder with
// unique words, and links them into the vault as link.md and linkdir.
func symlinkOutside(t *testing.T, e *testEnv) {
	t.Helper()
	out := filepath.Join(e.Root, "outside")
	if err := os.MkdirAll(filepath.Join(out, "dir", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, body := range map[string]string{
		"secret.md":            "# Secret\n\nThe narwhal lives outside the vault.\n",
		"dir/inner.md":         "# Inner\n\nThe axolotl lives outside the vault.\n",
		"dir/sub/innermost.md": "# Innermost\n\nThe tardigrade lives outside the vault.\n",
	} {
		if err := os.WriteFile(filepath.Join(out, filepath.FromSlash(p)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(out, "secret.md"), e.abs("link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, "dir"), e.abs("linkdir")); err != nil {
		t.Fatal(err)
	}
}

func TestWatchSymlinkEscape(t *testing.T) {
	e := newEnv(t, notes)
	d := e.startWatching()
	symlinkOutside(t, e)
	e.write("sentinel.md", "# Sentinel\n\nThe meerkat keeps watch.\n")
	d.waitFound(t, "meerkat", "sentinel.md")
	rr, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Wait: true})
	if err != nil || len(rr.Vaults) != 1 || rr.Vaults[0].Error != "" || rr.Vaults[0].Indexed != 0 || rr.Vaults[0].Removed != 0 {
		t.Fatalf("reindex = %+v, %v", rr, err)
	}
	for _, w := range []string{"narwhal", "axolotl", "tardigrade"} {
		if got := d.found(t, w); got != "" {
			t.Errorf("%s (outside the vault) indexed: %q", w, got)
		}
	}
	d.wantDocs(t, 4)
	d.Stop(t)
}

// TestSymlinkEscapeViaScopedReindex documents a bug in watch.ScanPath: a
// vault-relative path that goes through a symlinked directory is resolved
// by the OS, so a path-scoped reindex indexes files outside the vault.
func TestSymlinkEscapeViaScopedReindex(t *testing.T) {
	e := newEnv(t, notes)
	d := e.start()
	symlinkOutside(t, e)
	// Check after each pass: a pass scoped to "linkdir" itself removes
	// what the others let in (the link is not followed there).
	for _, p := range []string{"link.md", "linkdir", "linkdir/inner.md", "linkdir/sub"} {
		if _, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Path: p, Wait: true}); err != nil {
			t.Fatalf("reindex %s: %v", p, err)
		}
		if got := d.found(t, "narwhal axolotl tardigrade"); got != "" {
			t.Errorf("reindex of %s indexed files outside the vault: %q", p, got)
		}
	}
	d.wantDocs(t, 3)
	d.Stop(t)
}

func TestWatchVaultRootRemovedAndRestored(t *testing.T) {
	e := newEnv(t, notes)
	d := e.startWatching()
	away := e.Vault + ".away"
	mustRename(t, e.Vault, away)
	var v ipc.VaultStatus
	waitFor(t, d, func() bool { v = d.vault(t); return !v.Online && v.Watching == "offline" },
		"the vault to go offline")
	if v.Documents != 3 || v.Failed != 0 {
		t.Errorf("offline status = %+v, want the index of 3 documents kept", v)
	}
	if got := d.found(t, "sourdough"); got != "recipes/Sourdough.md" {
		t.Errorf("offline vault not served: %q", got)
	}

	mustRename(t, away, e.Vault)
	waitFor(t, d, func() bool { v = d.vault(t); return v.Online && v.Watching == "watching" },
		"the vault to come back online and watched")
	d.wantDocs(t, 3)
	e.write("Back.md", "# Back\n\nThe albatross returned.\n")
	d.waitFound(t, "albatross", "Back.md")
	e.write("recipes/More.md", "# More\n\nThe cormorant returned too.\n")
	d.waitFound(t, "cormorant", "recipes/More.md")
	d.wantDocs(t, 5)
	d.Stop(t)
}

func TestPeriodicRescanWithoutWatch(t *testing.T) {
	e := newEnv(t, notes)
	e.writeConfigWith(`rescan_interval = "1s"`, "watch = false\n")
	before := time.Now().UTC()
	d := e.start()
	if v := d.wantDocs(t, 3); v.Watching != "off" {
		t.Errorf("watching = %q, want off", v.Watching)
	}
	e.write("New.md", "# New\n\nThe okapi appeared.\n")
	e.write("recipes/Sourdough.md", "# Sourdough starter\n\nSpelt flour works too.\n")
	if err := os.Remove(e.abs("inbox.txt")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, func() bool {
		return d.found(t, "okapi") == "New.md" && d.found(t, "spelt") == "recipes/Sourdough.md" &&
			d.found(t, "hydration") == "" && d.found(t, "plumber") == ""
	}, "a periodic rescan to pick up a new, an edited and a deleted file")
	d.WaitIdle(t)
	if v := d.wantDocs(t, 3); v.Watching != "off" {
		t.Errorf("watching = %q, want off", v.Watching)
	}
	runs, err := d.Client.Runs(context.Background(), 50)
	if err != nil {
		t.Fatal(err)
	}
	var indexed, removed int
	for _, r := range runs.Runs {
		if r.Trigger == "watch" {
			t.Errorf("watch run with watch = false: %+v", r)
		}
		if r.Trigger == "periodic" && !r.Start.Before(before) {
			indexed += r.Indexed
			removed += r.Removed
		}
	}
	// At least 2: a pass that read a file mid-write indexes it again later.
	if indexed < 2 || removed != 1 {
		t.Errorf("periodic runs indexed %d and removed %d, want 2 (or more) and 1: %+v", indexed, removed, runs.Runs)
	}
	d.Stop(t)
}

func TestEventsStream(t *testing.T) {
	e := newEnv(t, notes)
	d := e.startWatching()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	events := make(chan ipc.Event, 4096)
	go d.Client.Events(ctx, func(ev ipc.Event) error {
		select {
		case events <- ev:
		case <-ctx.Done():
		}
		return nil
	})
	// The subscription is live once an event arrives: trigger waited
	// passes until one does.
	waitFor(t, d, func() bool {
		select {
		case <-events:
			return true
		default:
		}
		if _, err := d.Client.Reindex(ctx, ipc.ReindexRequest{Path: "inbox.txt", Wait: true}); err != nil {
			t.Fatal(err)
		}
		return false
	}, "the event stream to deliver an event")

	// next waits for an event of type typ for path, skipping others.
	next := func(typ, path string) ipc.Event {
		t.Helper()
		timeout := time.After(ragdtest.WaitTimeout)
		for {
			select {
			case ev := <-events:
				if ev.Type == typ && ev.Path == path {
					return ev
				}
			case <-timeout:
				t.Fatalf("no %q event for %s within %s", typ, path, ragdtest.WaitTimeout)
			}
		}
	}

	e.write("Evented.md", "# Evented\n\nThe kingfisher dives.\n")
	if ev := next(ipc.EventIndexed, "Evented.md"); ev.Vault != "notes" || ev.Time.IsZero() {
		t.Errorf("indexed event = %+v", ev)
	}
	if got := d.found(t, "kingfisher"); got != "Evented.md" {
		t.Errorf("after the indexed event: %q", got)
	}
	d.wantDocs(t, 4)

	if err := os.Remove(e.abs("Evented.md")); err != nil {
		t.Fatal(err)
	}
	if ev := next(ipc.EventRemoved, "Evented.md"); ev.Vault != "notes" {
		t.Errorf("removed event = %+v", ev)
	}
	if got := d.found(t, "kingfisher"); got != "" {
		t.Errorf("after the removed event: %q", got)
	}
	d.wantDocs(t, 3)
	cancel()
	d.Stop(t)
}
