package filestat

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// A rewrite in place keeps the inode and moves the ctime; a new file in the
// old one's place (an editor's save by rename) has another inode.
func TestIDFollowsRewritesAndReplacements(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no inode or ctime here")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "note.md")
	stat := func() ID {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return Of(fi)
	}
	if err := os.WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := stat()
	if first.Ino == 0 || first.CTime == 0 {
		t.Fatalf("id = %+v", first)
	}
	if err := os.Chmod(p, 0o600); err != nil { // changes the ctime, never the inode
		t.Fatal(err)
	}
	if got := stat(); got.Ino != first.Ino || got.CTime < first.CTime {
		t.Errorf("after chmod %+v, before %+v", got, first)
	}
	tmp := filepath.Join(dir, "note.md.tmp")
	if err := os.WriteFile(tmp, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	if got := stat(); got.Ino == first.Ino {
		t.Errorf("a file renamed into place kept the inode %d", got.Ino)
	}
}
