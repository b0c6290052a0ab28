package main

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ragd/ragd/ipc"
)

// TestUnreadableFolderIsSkipped: one folder that cannot be read used to
// turn the whole vault to polling (save → searchable in ~30 s) and was only
// in the log. Now it is skipped and listed in status, what is indexed from
// it is kept, the rest of the vault stays watched, and it is picked up when
// it is readable again. Special files are counted and listed.
func TestUnreadableFolderIsSkipped(t *testing.T) {
	vault := maps.Clone(notes)
	vault["private/Secret.md"] = "# Secret\n\nThe quetzal nests here.\n"
	vault["open/A.md"] = "# A\n\nThe ibis wades.\n"
	e := newEnv(t, vault)
	private := e.abs("private")
	t.Cleanup(func() { os.Chmod(private, 0o755) })
	// Root reads every folder: the daemon runs without those capabilities.
	env := []string{"RAGD_TEST_NO_DAC=1"}
	d := e.startEnv(env...)
	d.wantDocs(t, 5)

	// Unreadable while ragd runs: a full reconcile keeps its documents.
	if err := os.Chmod(private, 0); err != nil {
		t.Fatal(err)
	}
	rr, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	v := d.vault(t)
	if rr.Vaults[0].Removed != 0 || v.Documents != 5 || len(v.Unreadable) != 1 || v.Unreadable[0].Path != "private" {
		t.Errorf("after a reconcile with private/ unreadable: %+v, status %+v; want nothing removed and private listed", rr.Vaults[0], v)
	}
	if got := d.found(t, "quetzal"); got != "private/Secret.md" {
		t.Errorf("the unreadable folder's note is gone from search: %q", got)
	}
	d.Stop(t)

	// Unreadable at start: the rest is watched (not polled).
	if err := syscall.Mkfifo(e.abs("pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(e.Root, "outside.md")
	os.WriteFile(outside, []byte("# Outside\n\nThe yeti.\n"), 0o644)
	if err := os.Symlink(outside, e.abs("out.md")); err != nil {
		t.Fatal(err)
	}
	d = e.startEnv(env...)
	waitFor(t, d, func() bool { return d.vault(t).Watching == "watching" }, `status watching == "watching" with an unreadable folder`)
	v = d.vault(t)
	if len(v.Unreadable) != 1 || v.Unreadable[0].Path != "private" || v.Unreadable[0].Reason != "permission denied" || v.Documents != 5 {
		t.Errorf("status = %+v, want private/ listed as unreadable and 5 documents", v)
	}
	if v.Special != 2 || len(v.SpecialFiles) != 2 || v.SpecialFiles[0].Path != "out.md" || v.SpecialFiles[1].Path != "pipe.md" {
		t.Errorf("special files = %d %+v, want out.md and pipe.md", v.Special, v.SpecialFiles)
	}
	e.write("open/B.md", "# B\n\nThe heron waits.\n")
	d.waitFound(t, "heron", "open/B.md")

	// Readable again: watched, and new notes in it are found.
	if err := os.Chmod(private, 0o755); err != nil {
		t.Fatal(err)
	}
	e.write("private/New.md", "# New\n\nThe kakapo climbs.\n")
	d.waitFound(t, "kakapo", "private/New.md")
	if _, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Wait: true}); err != nil {
		t.Fatal(err)
	}
	if v = d.vault(t); len(v.Unreadable) != 0 || v.Documents != 7 {
		t.Errorf("after private/ became readable: %+v", v)
	}
	d.Stop(t)
}
