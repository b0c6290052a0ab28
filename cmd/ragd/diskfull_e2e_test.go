package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/testfs"
)

// TestDiskFullPausesIndexing is the fourth failure of the fault campaign:
// with the data directory's disk full, ragd died of a SIGBUS writing a
// memory-mapped Badger file. Now indexing pauses with a clear status,
// queries are answered, and indexing resumes by itself when room returns.
func TestDiskFullPausesIndexing(t *testing.T) {
	if err := testfs.Available(); err != nil {
		t.Skipf("needs a small tmpfs for the data directory: %v (index.TestDiskFullRefusesWrites simulates the full disk)", err)
	}
	e := newEnv(t, notes)
	if err := os.MkdirAll(e.Data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := testfs.Mount(e.Data, 96<<20); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { testfs.Unmount(e.Data) })
	d := e.startWatching()
	d.wantDocs(t, 3)

	// Leave 256 KB free, then save a 1 MB note.
	ballast := filepath.Join(e.Data, "ballast")
	free, err := testfs.Free(e.Data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ballast, make([]byte, free-256<<10), 0o600); err != nil {
		t.Fatal(err)
	}
	var big strings.Builder
	big.WriteString("# Big\n\n")
	for i := 0; big.Len() < 1<<20; i++ {
		fmt.Fprintf(&big, "Paragraph %d on the zebrafish and its habitat, number %d of many.\n\n", i, i)
	}
	e.write("Big.md", big.String())

	waitFor(t, d, func() bool { return d.status(t).DiskFull != "" }, "status to report the full disk")
	st := d.status(t)
	if !strings.HasPrefix(st.DiskFull, "disk full: ") || !strings.Contains(st.DiskFull, " MB free on "+e.Data) {
		t.Errorf("disk_full = %q", st.DiskFull)
	}
	// The log reaches the test through a pipe, after status may already say so.
	waitFor(t, d, func() bool { return strings.Contains(d.Output(), "indexing paused: disk full") },
		"the log to say indexing is paused")
	if got := d.found(t, "sourdough"); got != "recipes/Sourdough.md" {
		t.Errorf("queries not answered while the disk is full: %q", got)
	}

	if err := os.Remove(ballast); err != nil {
		t.Fatal(err)
	}
	waitFor(t, d, func() bool { return d.status(t).DiskFull == "" }, "the pause to end when room returned")
	d.waitFound(t, "zebrafish habitat", "Big.md")
	d.WaitIdle(t)
	d.wantDocs(t, 4)
	d.Stop(t)
}
