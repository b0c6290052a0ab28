package watch

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"syscall"
	"testing"
)

// TestScanReportsSpecialFiles: named pipes, sockets and symbolic links out
// of the vault or nowhere are passed over, and listed with the reason.
func TestScanReportsSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "vault")
	write(t, root, "a.md", "a")
	write(t, dir, "outside.md", "secret")
	if err := syscall.Mkfifo(filepath.Join(root, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(root, "sock.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	os.Symlink(filepath.Join(dir, "outside.md"), filepath.Join(root, "out.md"))
	os.Symlink(filepath.Join(root, "nowhere.md"), filepath.Join(root, "broken.md"))
	os.Symlink("a.md", filepath.Join(root, "inside.md"))
	write(t, root, "ignored.bin", "not admitted by the filter")

	files, rep, err := ScanReport(context.Background(), root, "", testFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var rels []string
	for _, f := range files {
		rels = append(rels, f.Rel)
	}
	if !reflect.DeepEqual(rels, []string{"a.md", "inside.md"}) {
		t.Errorf("files = %v", rels)
	}
	want := []Skipped{
		{"broken.md", "a symbolic link that leads nowhere"},
		{"out.md", "a symbolic link out of the vault"},
		{"pipe.md", "a named pipe (FIFO)"},
		{"sock.md", "a socket"},
	}
	if !reflect.DeepEqual(rep.Special, want) {
		t.Errorf("special = %v\nwant %v", rep.Special, want)
	}
	if len(rep.Unreadable) != 0 {
		t.Errorf("unreadable = %v", rep.Unreadable)
	}
}

// TestUnreadableFolder: a folder that cannot be read is reported by the
// scan, and skipped by the watcher, which keeps watching the rest.
func TestUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every folder; cmd/ragd's TestUnreadableFolderIsSkipped runs the daemon without those capabilities")
	}
	h := start(t, func(root string) {
		write(t, root, "open/a.md", "a")
		write(t, root, "private/b.md", "b")
		if err := os.Chmod(filepath.Join(root, "private"), 0); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(filepath.Join(root, "private"), 0o755) })
	})
	if got := h.w.Unreadable(); len(got) != 1 || got[0].Rel != "private" || got[0].Reason != "permission denied" {
		t.Fatalf("watcher unreadable = %v", got)
	}
	_, rep, err := ScanReport(context.Background(), h.root, "", testFilter{})
	if err != nil || len(rep.Unreadable) != 1 || rep.Unreadable[0].Rel != "private" {
		t.Fatalf("scan unreadable = %v, %v", rep.Unreadable, err)
	}
	write(t, h.root, "open/c.md", "c")
	if b := h.next(); !reflect.DeepEqual(b.Paths, []string{"open/c.md"}) {
		t.Fatalf("the rest of the vault is not watched: %+v", b)
	}
	// Readable again: watched again, and what it holds is reported.
	if err := os.Chmod(filepath.Join(h.root, "private"), 0o755); err != nil {
		t.Fatal(err)
	}
	if b := h.next(); !reflect.DeepEqual(b.Paths, []string{"private", "private/b.md"}) {
		t.Fatalf("after chmod: %+v", b)
	}
	if got := h.w.Unreadable(); len(got) != 0 {
		t.Errorf("still unreadable: %v", got)
	}
}
