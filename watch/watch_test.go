package watch

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// testFilter includes *.md and *.txt and excludes .git and .obsidian.
type testFilter struct{}

func (testFilter) Match(rel string) bool {
	if testFilter.ExcludedDir(testFilter{}, rel) {
		return false
	}
	for _, part := range strings.Split(rel, "/") {
		if part == ".git" || part == ".obsidian" {
			return false
		}
	}
	return strings.HasSuffix(rel, ".md") || strings.HasSuffix(rel, ".txt")
}

func (testFilter) ExcludedDir(rel string) bool {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	return base == ".git" || base == ".obsidian"
}

func write(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

type harness struct {
	t     *testing.T
	root  string
	w     *Watcher
	out   chan Batch
	cause context.CancelFunc
}

func start(t *testing.T, setup func(root string)) *harness {
	return startWith(t, setup, Options{Debounce: 50 * time.Millisecond, MaxDelay: 500 * time.Millisecond})
}

func startWith(t *testing.T, setup func(root string), opt Options) *harness {
	t.Helper()
	root := t.TempDir()
	if setup != nil {
		setup(root)
	}
	w, err := New(root, testFilter{}, opt)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &harness{t: t, root: root, w: w, out: make(chan Batch), cause: cancel}
	go w.Run(ctx, h.out)
	t.Cleanup(func() { cancel(); w.Close() })
	return h
}

// next returns the next batch, failing after a timeout.
func (h *harness) next() Batch {
	h.t.Helper()
	select {
	case b := <-h.out:
		return b
	case <-time.After(5 * time.Second):
		h.t.Fatal("no batch")
	}
	return Batch{}
}

// quiet asserts no batch arrives for a while.
func (h *harness) quiet() {
	h.t.Helper()
	select {
	case b := <-h.out:
		h.t.Fatalf("unexpected batch %+v", b)
	case <-time.After(300 * time.Millisecond):
	}
}

func TestCreateWriteRemove(t *testing.T) {
	h := start(t, nil)
	write(t, h.root, "a.md", "one")
	if b := h.next(); !reflect.DeepEqual(b.Paths, []string{"a.md"}) {
		t.Fatalf("create: %+v", b)
	}
	write(t, h.root, "a.md", "two")
	if b := h.next(); !reflect.DeepEqual(b.Paths, []string{"a.md"}) {
		t.Fatalf("write: %+v", b)
	}
	os.Remove(filepath.Join(h.root, "a.md"))
	if b := h.next(); !reflect.DeepEqual(b.Paths, []string{"a.md"}) {
		t.Fatalf("remove: %+v", b)
	}
	os.Chmod(h.root, 0o755)
	h.quiet()
}

func TestBurstBecomesOneBatch(t *testing.T) {
	// MaxDelay is long enough for the burst, however slow the machine.
	h := startWith(t, nil, Options{Debounce: 300 * time.Millisecond, MaxDelay: time.Minute})
	for i := range 1000 {
		write(t, h.root, "busy.md", strings.Repeat("x", i))
	}
	b := h.next()
	if !reflect.DeepEqual(b.Paths, []string{"busy.md"}) {
		t.Fatalf("burst: %+v", b)
	}
	h.quiet()
}

func TestAtomicSaveViaRename(t *testing.T) {
	h := start(t, func(root string) { write(t, root, "note.md", "old") })
	write(t, h.root, ".note.md.tmp123", "new")
	os.Rename(filepath.Join(h.root, ".note.md.tmp123"), filepath.Join(h.root, "note.md"))
	if b := h.next(); !reflect.DeepEqual(b.Paths, []string{"note.md"}) {
		t.Fatalf("atomic save: %+v", b)
	}
}

func TestNewNestedTreeIsWatched(t *testing.T) {
	h := start(t, nil)
	write(t, h.root, "x/y/z/deep.md", "deep")
	b := h.next()
	if !contains(b.Paths, "x/y/z/deep.md") {
		t.Fatalf("nested create: %+v", b)
	}
	// The new directories are watched: a later write is seen.
	write(t, h.root, "x/y/z/later.md", "later")
	if b := h.next(); !contains(b.Paths, "x/y/z/later.md") {
		t.Fatalf("write in new dir: %+v", b)
	}
}

func TestFolderRenameAndDelete(t *testing.T) {
	h := start(t, func(root string) { write(t, root, "old/n.md", "n") })
	os.Rename(filepath.Join(h.root, "old"), filepath.Join(h.root, "new"))
	b := h.next()
	if !contains(b.Paths, "old") || !contains(b.Paths, "new/n.md") {
		t.Fatalf("folder rename: %+v", b)
	}
	write(t, h.root, "new/m.md", "m")
	if b := h.next(); !contains(b.Paths, "new/m.md") {
		t.Fatalf("write in renamed folder: %+v", b)
	}
	os.RemoveAll(filepath.Join(h.root, "new"))
	if b := h.next(); !contains(b.Paths, "new") {
		t.Fatalf("folder delete: %+v", b)
	}
}

func TestExcludedAndNoiseIgnored(t *testing.T) {
	h := start(t, func(root string) { os.MkdirAll(filepath.Join(root, ".git"), 0o755) })
	write(t, h.root, ".git/index", "x")
	write(t, h.root, ".obsidian/workspace.json", "{}")
	write(t, h.root, "note.md.swp", "vim")
	write(t, h.root, "4913", "")
	h.quiet()
}

func TestRootRemoved(t *testing.T) {
	h := start(t, nil)
	os.RemoveAll(h.root)
	if b := h.next(); !b.RootGone {
		t.Fatalf("root removal: %+v", b)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestScanPath(t *testing.T) {
	root := t.TempDir()
	for _, rel := range []string{"a.md", "sub/b.md", "sub/deep/c.txt", "sub/x.pdf", ".git/d.md", "other/e.md"} {
		write(t, root, rel, "x")
	}
	names := func(fs []File) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Rel)
		}
		return out
	}
	all, err := Scan(context.Background(), root, testFilter{})
	if err != nil || !reflect.DeepEqual(names(all), []string{"a.md", "other/e.md", "sub/b.md", "sub/deep/c.txt"}) {
		t.Fatalf("scan = %v, %v", names(all), err)
	}
	sub, _ := ScanPath(context.Background(), root, "sub", testFilter{})
	if !reflect.DeepEqual(names(sub), []string{"sub/b.md", "sub/deep/c.txt"}) {
		t.Fatalf("scan sub = %v", names(sub))
	}
	one, _ := ScanPath(context.Background(), root, "a.md", testFilter{})
	if !reflect.DeepEqual(names(one), []string{"a.md"}) {
		t.Fatalf("scan file = %v", names(one))
	}
	for _, rel := range []string{"gone.md", ".git/d.md", "sub/x.pdf"} {
		if got, err := ScanPath(context.Background(), root, rel, testFilter{}); len(got) != 0 || err != nil {
			t.Errorf("ScanPath(%s) = %v, %v", rel, names(got), err)
		}
	}
	// A symlink out of the vault is never followed.
	outside := t.TempDir()
	write(t, outside, "secret.md", "x")
	os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(root, "link.md"))
	os.Symlink(outside, filepath.Join(root, "linkdir"))
	all, _ = Scan(context.Background(), root, testFilter{})
	for _, f := range all {
		if strings.HasPrefix(f.Rel, "link") {
			t.Errorf("followed a symlink out of the vault: %s", f.Rel)
		}
	}
}

// A watcher opened on the root alone and primed by the whole-vault scan
// lists what ScanReport lists, watches every folder the scan entered, and
// sees a file written afterwards in a nested folder.
func TestScanWatchesEveryFolder(t *testing.T) {
	root := t.TempDir()
	write(t, root, "a.md", "a")
	write(t, root, "x/y/z/deep.md", "deep")
	write(t, root, "x/b.txt", "b")
	write(t, root, ".git/HEAD.md", "excluded")
	w, err := Open(root, testFilter{}, Options{Debounce: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.Dirs() != 1 {
		t.Fatalf("Open watches %d folders, want the root alone", w.Dirs())
	}
	files, _, err := w.Scan(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want, _, err := ScanReport(t.Context(), root, "", testFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var got, exp []string
	for _, f := range files {
		got = append(got, f.Rel)
	}
	for _, f := range want {
		exp = append(exp, f.Rel)
	}
	if !reflect.DeepEqual(got, exp) {
		t.Fatalf("Scan found %v, ScanReport %v", got, exp)
	}
	if w.Dirs() != 4 { // root, x, x/y, x/y/z
		t.Fatalf("Scan watches %d folders, want 4", w.Dirs())
	}
	if err := w.WatchAll(); err != nil {
		t.Fatal(err)
	}
	out := make(chan Batch)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go w.Run(ctx, out)
	write(t, root, "x/y/z/new.md", "new")
	select {
	case b := <-out:
		if !contains(b.Paths, "x/y/z/new.md") {
			t.Fatalf("batch %v lacks the new file", b.Paths)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no batch for a file written under a folder the scan watched")
	}
}
