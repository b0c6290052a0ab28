package main

// End-to-end tests of vault presence: a vault whose drive is unmounted (a
// real tmpfs where the tests run as root, otherwise its folder swapped for
// an empty one), a vault emptied while ragd is stopped, and mass deletions.
// The index must survive all of them.

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/testfs"
	"github.com/ragd/ragd/ipc"
)

// drive puts a test vault on a removable "drive": a tmpfs when mounting
// works, else a folder that unmount swaps for an empty one.
type drive struct {
	t       *testing.T
	e       *testEnv
	tmpfs   bool
	mounted bool
	notes   map[string]string
}

func newDrive(t *testing.T, notes map[string]string) (*testEnv, *drive) {
	t.Helper()
	e := newEnv(t, nil)
	dr := &drive{t: t, e: e, notes: maps.Clone(notes), tmpfs: testfs.Available() == nil}
	if !dr.tmpfs {
		t.Logf("simulating the unmount by swapping the folder: %v", testfs.Available())
	}
	dr.mount()
	t.Cleanup(func() {
		if dr.tmpfs && dr.mounted {
			testfs.Unmount(e.Vault)
		}
	})
	return e, dr
}

// mount attaches the drive with its notes.
func (dr *drive) mount() {
	dr.t.Helper()
	if dr.tmpfs {
		if err := testfs.Mount(dr.e.Vault, 8<<20); err != nil {
			dr.t.Fatal(err)
		}
		for rel, body := range dr.notes {
			dr.e.write(rel, body)
		}
	} else if dr.mounted || dr.e.Vault == "" {
		dr.t.Fatal("drive mounted twice")
	} else if _, err := os.Stat(dr.e.Vault + ".mnt"); err == nil {
		if err := os.Remove(dr.e.Vault); err != nil {
			dr.t.Fatal(err)
		}
		mustRename(dr.t, dr.e.Vault+".mnt", dr.e.Vault)
	} else {
		for rel, body := range dr.notes {
			dr.e.write(rel, body)
		}
	}
	dr.mounted = true
}

// unmount detaches the drive: the vault's path is an empty folder again.
func (dr *drive) unmount() {
	dr.t.Helper()
	if dr.tmpfs {
		if err := testfs.Unmount(dr.e.Vault); err != nil {
			dr.t.Fatal(err)
		}
	} else {
		mustRename(dr.t, dr.e.Vault, dr.e.Vault+".mnt")
		if err := os.Mkdir(dr.e.Vault, 0o755); err != nil {
			dr.t.Fatal(err)
		}
	}
	dr.mounted = false
}

// TestUnmountedVaultKeepsItsIndex is the first failure of the fault
// campaign: after an unmount, status said healthy, the next reconcile
// removed every document, and after the remount edits were not seen.
func TestUnmountedVaultKeepsItsIndex(t *testing.T) {
	e, dr := newDrive(t, notes)
	d := e.startWatching()
	d.wantDocs(t, 3)

	dr.unmount()
	// Status never says watching for a dead watcher, not even before the
	// daemon has noticed.
	if v := d.vault(t); v.Watching == "watching" {
		t.Errorf("right after the unmount, status says %q", v.Watching)
	}
	var v ipc.VaultStatus
	waitFor(t, d, func() bool { v = d.vault(t); return !v.Online && v.Watching == "offline" }, "the vault to go offline")
	// A full reconcile, as the periodic one would do, must keep the index.
	rr, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Vaults[0].Removed != 0 || rr.Vaults[0].Error == "" {
		t.Errorf("reindex of an unmounted vault: %+v, want nothing removed and an error", rr.Vaults[0])
	}
	v = d.vault(t)
	if v.Online || v.Documents != 3 || v.Offline == "" {
		t.Errorf("status = %+v, want offline with a reason and 3 documents kept", v)
	}
	if got := d.found(t, "sourdough"); got != "recipes/Sourdough.md" {
		t.Errorf("offline vault not served: %q", got)
	}

	dr.mount()
	waitFor(t, d, func() bool { v = d.vault(t); return v.Online && v.Watching == "watching" },
		"the vault to come back online and watched")
	e.write("Back.md", "# Back\n\nThe albatross returned.\n")
	d.waitFound(t, "albatross", "Back.md")
	d.wantDocs(t, 4)

	// Unmounted and mounted again at once, before ragd looks: the watcher
	// of the old mount is dead and must be replaced.
	dr.notes["Back.md"] = "# Back\n\nThe albatross returned.\n"
	dr.unmount()
	dr.mount()
	e.write("Again.md", "# Again\n\nThe petrel came by.\n")
	d.waitFound(t, "petrel", "Again.md")
	// The note is found once the pass after the root's return has written
	// it; the vault is online once that pass has ended.
	waitFor(t, d, func() bool { return d.vault(t).Online }, "the vault to be online after the pass")
	d.wantDocs(t, 5)
	d.Stop(t)
}

// TestVaultEmptiedWhileStopped: a vault whose folder is empty when ragd
// starts (the drive was not mounted yet) keeps its index, and is picked up
// when the files appear.
func TestVaultEmptiedWhileStopped(t *testing.T) {
	e, dr := newDrive(t, notes)
	d := e.start()
	d.wantDocs(t, 3)
	d.Stop(t)

	dr.unmount()
	d = e.ragd("run", "-config", e.Config)
	var v ipc.VaultStatus
	waitFor(t, d, func() bool {
		st, err := d.Client.Status(context.Background())
		if err != nil || len(st.Vaults) != 1 {
			return false
		}
		v = st.Vaults[0]
		return st.State == ipc.StateIdle && !v.Online
	}, "the start-up pass to find the vault empty")
	if v.Documents != 3 || !strings.Contains(v.Offline, "no files") {
		t.Errorf("status = %+v, want offline (no files) with 3 documents kept", v)
	}
	if got := d.found(t, "sourdough"); got != "recipes/Sourdough.md" {
		t.Errorf("offline vault not served: %q", got)
	}
	dr.mount()
	waitFor(t, d, func() bool { v = d.vault(t); return v.Online && v.Watching == "watching" },
		"the vault to come back online")
	e.write("Back.md", "# Back\n\nThe albatross returned.\n")
	d.waitFound(t, "albatross", "Back.md")
	d.wantDocs(t, 4)
	d.Stop(t)
}

// TestMassDeletionIsHeld: more than half of a vault disappearing in one
// pass is held (and shown) until the files come back or it is confirmed;
// changes meanwhile are still indexed.
func TestMassDeletionIsHeld(t *testing.T) {
	many := map[string]string{}
	for i := range 20 {
		many[fmt.Sprintf("folder/Note %02d.md", i)] = fmt.Sprintf("# Note %02d\n\nThe quokka number %d.\n", i, i)
	}
	many["Keep.md"] = "# Keep\n\nThe wombat stays.\n"
	e := newEnv(t, many)
	d := e.startWatching()
	d.wantDocs(t, 21)

	mustRename(t, e.abs("folder"), e.Root+"/folder.away")
	var v ipc.VaultStatus
	waitFor(t, d, func() bool { v = d.vault(t); return v.HeldDeletions != nil }, "the deletions to be held")
	if v.Documents != 21 || v.HeldDeletions.Missing != 20 || v.HeldDeletions.Documents != 21 || !v.Online {
		t.Errorf("status = %+v (held %+v), want 21 documents kept, 20 held", v, v.HeldDeletions)
	}
	// Live changes still land while removals are held.
	e.write("Sentinel.md", "# Sentinel\n\nThe numbat arrived.\n")
	d.waitFound(t, "numbat", "Sentinel.md")
	if v = d.vault(t); v.Documents != 22 {
		t.Errorf("documents = %d, want 22 (nothing removed)", v.Documents)
	}

	// The files come back: the hold is released, nothing was lost.
	mustRename(t, e.Root+"/folder.away", e.abs("folder"))
	waitFor(t, d, func() bool { v = d.vault(t); return v.HeldDeletions == nil }, "the hold to be released")
	d.WaitIdle(t)
	d.wantDocs(t, 22)

	// Gone again, and this time confirmed.
	if err := os.RemoveAll(e.abs("folder")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, func() bool { v = d.vault(t); return v.HeldDeletions != nil }, "the deletions to be held again")
	rr, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Vault: "notes", Wait: true, ConfirmDeletions: true})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Vaults[0].Removed != 20 {
		t.Errorf("confirmed reindex removed %d, want 20", rr.Vaults[0].Removed)
	}
	if v = d.wantDocs(t, 2); v.HeldDeletions != nil {
		t.Errorf("still held after confirming: %+v", v.HeldDeletions)
	}
	d.Stop(t)
}

// TestEmptiedVaultConfirmed: a user who really deleted every note confirms
// it, and the vault is watched again.
func TestEmptiedVaultConfirmed(t *testing.T) {
	e := newEnv(t, notes)
	d := e.startWatching()
	for rel := range notes {
		if err := os.Remove(e.abs(rel)); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(e.abs("recipes"))
	var v ipc.VaultStatus
	waitFor(t, d, func() bool { v = d.vault(t); return !v.Online }, "the emptied vault to go offline")
	if v.Documents != 3 {
		t.Errorf("documents = %d, want 3 kept", v.Documents)
	}
	rr, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Vault: "notes", Wait: true, ConfirmDeletions: true})
	if err != nil || rr.Vaults[0].Removed != 3 {
		t.Fatalf("confirmed reindex: %+v, %v", rr, err)
	}
	waitFor(t, d, func() bool { v = d.vault(t); return v.Online && v.Watching == "watching" }, "the vault to be watched again")
	e.write("First.md", "# First\n\nThe pangolin begins anew.\n")
	d.waitFound(t, "pangolin", "First.md")
	d.Stop(t)
}
