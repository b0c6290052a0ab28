package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/internal/testfs"
)

func TestJudge(t *testing.T) {
	tests := []struct {
		stored, found, removals int
		want                    Verdict
	}{
		{0, 0, 0, Present},               // a new, empty vault
		{3, 0, 3, Vanished},              // every file gone: unmounted?
		{200, 0, 200, Vanished},          // the same, large
		{3, 1, 2, Present},               // small vaults are never held for a partial loss
		{10, 4, 6, HoldDeletions},        // 60 % of a vault gone in one pass
		{10, 5, 5, Present},              // exactly half is allowed
		{100, 100, 0, Present},           // nothing gone
		{100, 60, 60, HoldDeletions},     // renames are not counted as found
		{1000, 999, 1, Present},          // one deletion
		{1000, 1500, 501, HoldDeletions}, // many new files do not hide many removals
	}
	for _, tt := range tests {
		got, why := Judge(tt.stored, tt.found, tt.removals)
		if got != tt.want {
			t.Errorf("Judge(%d, %d, %d) = %v (%q), want %v", tt.stored, tt.found, tt.removals, got, why, tt.want)
		}
		if (got == Present) != (why == "") {
			t.Errorf("Judge(%d, %d, %d): verdict %v with reason %q", tt.stored, tt.found, tt.removals, got, why)
		}
	}
}

func TestStatRoot(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	if _, err := StatRoot(root); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("missing root: err = %v", err)
	}
	if err := os.Mkdir(root, 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := StatRoot(root)
	if err != nil || !st.Empty || st.MountPoint {
		t.Fatalf("empty dir: %+v, %v", st, err)
	}
	write(t, root, "a.md", "x")
	st2, _ := StatRoot(root)
	if st2.Empty || !st2.SameDir(st) {
		t.Fatalf("after a write: %+v (before %+v)", st2, st)
	}
	if err := testfs.Available(); err != nil {
		t.Logf("mount-point detection not checked: %v", err)
		return
	}
	mnt := filepath.Join(dir, "mnt")
	os.Mkdir(mnt, 0o755)
	if err := testfs.Mount(mnt, 1<<20); err != nil {
		t.Fatal(err)
	}
	defer testfs.Unmount(mnt)
	if st, err := StatRoot(mnt); err != nil || !st.MountPoint {
		t.Fatalf("tmpfs mount point: %+v, %v", st, err)
	}
}

// TestAliveAfterRootReplaced: a watcher whose root was swapped for another
// directory (what an unmounted drive leaves behind) is dead.
func TestAliveAfterRootReplaced(t *testing.T) {
	h := start(t, func(root string) { write(t, root, "a.md", "one") })
	if !h.w.Alive() || !h.w.Intact() {
		t.Fatal("a fresh watcher is not alive")
	}
	if err := os.Rename(h.root, h.root+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(h.root, 0o755); err != nil {
		t.Fatal(err)
	}
	if h.w.Intact() {
		t.Fatal("intact after its root was replaced by an empty directory")
	}
	if h.w.Alive() {
		t.Fatal("alive after its root was replaced by an empty directory")
	}
}

// TestAliveAfterUnmount: unmounting the vault's file system drops every
// inotify watch silently (fsnotify reports nothing); Alive must notice,
// even when the same kind of file system is mounted there again at once.
func TestAliveAfterUnmount(t *testing.T) {
	if err := testfs.Available(); err != nil {
		t.Skipf("needs a tmpfs mount: %v (TestAliveAfterRootReplaced simulates it)", err)
	}
	root := filepath.Join(t.TempDir(), "vault")
	os.Mkdir(root, 0o755)
	if err := testfs.Mount(root, 1<<20); err != nil {
		t.Fatal(err)
	}
	mounted := true
	defer func() {
		if mounted {
			testfs.Unmount(root)
		}
	}()
	write(t, root, "a.md", "one")
	w, err := New(root, testFilter{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if !w.Alive() {
		t.Fatal("not alive on a mounted vault")
	}
	if err := testfs.Unmount(root); err != nil {
		t.Fatal(err)
	}
	mounted = false
	if w.Intact() {
		t.Fatal("intact after its file system was unmounted")
	}
	if w.Alive() {
		t.Fatal("alive after its file system was unmounted")
	}
	if err := testfs.Mount(root, 1<<20); err != nil {
		t.Fatal(err)
	}
	mounted = true
	// The kernel drops the watches asynchronously; the new tmpfs may even
	// reuse the old device number and root inode.
	deadline := time.Now().Add(5 * time.Second)
	for w.Alive() {
		if time.Now().After(deadline) {
			t.Fatal("alive on a file system mounted after it was unmounted")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// Once Alive has seen the watch gone, Intact says so too.
	if w.Intact() {
		t.Fatal("intact after Alive found the root's watch gone")
	}
}
