package index

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/index/chunk"
)

// vaultFiles writes files (path → content) under a new temp dir and
// returns their File list.
func vaultFiles(t testing.TB, dir string, files map[string]string) []File {
	t.Helper()
	var out []File
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for rel := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		fi, err := os.Stat(p)
		if err != nil {
			continue
		}
		out = append(out, File{Rel: rel, Abs: p, Size: fi.Size(), ModTime: fi.ModTime()})
	}
	return out
}

func openStore(t testing.TB, dir string) *Store {
	t.Helper()
	s, err := Open(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func search(t testing.TB, s *Store, q string) []string {
	t.Helper()
	var paths []string
	for _, h := range s.Search(s.Analyzer().AppendTerms(nil, q), 10, nil) {
		paths = append(paths, h.Path)
	}
	return paths
}

var sampleVault = map[string]string{
	"garden.md":       "---\ntags: [garden]\n---\n# Garden\n\nTomatoes need deep watering twice a week.\n\n## Pests\n\nAphids on the roses; try soapy water.\n",
	"backup.md":       "# Backups\n\nRestic snapshots go to the NAS every night.\n\n## Retention\n\nKeep seven daily snapshots and four weekly ones.\n",
	"notes/travel.md": "# Lisbon\n\nTram 28 climbs through Alfama.\n",
	"inbox.txt":       "Call the plumber about the leaking tap.\n\nBuy tomatoes.\n",
}

func TestSyncSearchAndCitations(t *testing.T) {
	vault := t.TempDir()
	s := openStore(t, t.TempDir())
	defer s.Close()
	files := vaultFiles(t, vault, sampleVault)
	res, err := s.Sync(context.Background(), SyncOptions{Vault: "v", Complete: true}, files)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 4 || res.Failed != 0 {
		t.Fatalf("sync = %+v", res)
	}
	hits := s.Search(s.Analyzer().AppendTerms(nil, "weekly snapshots retention"), 5, nil)
	if len(hits) == 0 || hits[0].Path != "backup.md" {
		t.Fatalf("hits = %+v", hits)
	}
	h := hits[0]
	if got := strings.Join(h.Heading, " > "); got != "Backups > Retention" {
		t.Errorf("heading = %q", got)
	}
	// The citation's line range must hold the chunk's text exactly.
	cs, err := s.Chunks([]ChunkRef{h.Ref})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(sampleVault["backup.md"], "\n")
	cited := strings.Join(lines[h.LineStart-1:h.LineEnd], "\n")
	if !strings.Contains(cited, cs[0].Text) || cs[0].Text == "" {
		t.Errorf("lines %d-%d = %q do not hold chunk text %q", h.LineStart, h.LineEnd, cited, cs[0].Text)
	}
	if got := search(t, s, "tomatoes"); len(got) != 2 {
		t.Errorf("tomatoes in %v, want garden.md and inbox.txt", got)
	}
	// Scope filter inside retrieval.
	only := s.Search(s.Analyzer().AppendTerms(nil, "tomatoes"), 5, func(_, p string) bool { return strings.HasSuffix(p, ".txt") })
	if len(only) != 1 || only[0].Path != "inbox.txt" {
		t.Errorf("filtered = %+v", only)
	}
}

func TestSyncChangesAndUnchanged(t *testing.T) {
	vault := t.TempDir()
	s := openStore(t, t.TempDir())
	defer s.Close()
	ctx := context.Background()
	opt := SyncOptions{Vault: "v", Complete: true}
	if _, err := s.Sync(ctx, opt, vaultFiles(t, vault, sampleVault)); err != nil {
		t.Fatal(err)
	}
	before := s.Stats()
	res, err := s.Sync(ctx, opt, vaultFiles(t, vault, sampleVault))
	if err != nil {
		t.Fatal(err)
	}
	if res.Unchanged != 4 || res.Indexed != 0 {
		t.Fatalf("second sync = %+v", res)
	}
	if s.Stats() != before {
		t.Errorf("stats changed on a no-op sync: %+v → %+v", before, s.Stats())
	}

	changed := map[string]string{}
	for k, v := range sampleVault {
		changed[k] = v
	}
	changed["notes/travel.md"] = "# Lisbon\n\nThe funicular beats the tram.\n"
	delete(changed, "garden.md")
	os.Remove(filepath.Join(vault, "garden.md"))
	res, err = s.Sync(ctx, opt, vaultFiles(t, vault, changed))
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 1 || res.Removed != 1 || res.Unchanged != 2 {
		t.Fatalf("third sync = %+v", res)
	}
	if got := search(t, s, "funicular"); !reflect.DeepEqual(got, []string{"notes/travel.md"}) {
		t.Errorf("funicular → %v", got)
	}
	if got := search(t, s, "alfama"); len(got) != 0 {
		t.Errorf("old text still found: %v", got)
	}
	if got := search(t, s, "aphids"); len(got) != 0 {
		t.Errorf("deleted note still found: %v", got)
	}
	if st := s.Stats(); st.Docs != 3 {
		t.Errorf("docs = %d", st.Docs)
	}
}

func TestReopenLoadsSameIndex(t *testing.T) {
	vault, data := t.TempDir(), t.TempDir()
	s := openStore(t, data)
	if _, err := s.Sync(context.Background(), SyncOptions{Vault: "v", Complete: true}, vaultFiles(t, vault, sampleVault)); err != nil {
		t.Fatal(err)
	}
	want := s.Search(s.Analyzer().AppendTerms(nil, "snapshots tomatoes tram"), 10, nil)
	stats := s.Stats()
	s.Close()

	s = openStore(t, data)
	defer s.Close()
	got := s.Search(s.Analyzer().AppendTerms(nil, "snapshots tomatoes tram"), 10, nil)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after reopen:\n got %+v\nwant %+v", got, want)
	}
	if s.Stats() != stats {
		t.Errorf("stats %+v, want %+v", s.Stats(), stats)
	}
	if err := s.Check(); err != nil {
		t.Errorf("consistency check: %v", err)
	}
}

func TestBadFilesAreRecordedAsFailed(t *testing.T) {
	vault := t.TempDir()
	s := openStore(t, t.TempDir())
	defer s.Close()
	files := vaultFiles(t, vault, map[string]string{
		"ok.md":     "# Fine\n\nhello world\n",
		"empty.md":  "  \n\n",
		"binary.md": "PK\x03\x04\x00\x00binary",
		"latin1.md": "caf\xe9 au lait",
		"big.md":    strings.Repeat("word ", 400),
		"image.png": "not really",
	})
	res, err := s.Sync(context.Background(), SyncOptions{Vault: "v", Complete: true, MaxBytes: 1000}, files)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 1 || res.Failed != 5 {
		t.Fatalf("sync = %+v", res)
	}
	docs, err := s.Documents("v")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"empty.md": "empty file", "binary.md": "binary file", "latin1.md": "not valid UTF-8",
		"big.md": "over the vault's max_file_mb", "image.png": "no extractor",
	}
	for _, d := range docs {
		if w, ok := want[d.Path]; ok {
			if d.Status != StatusFailed || !strings.Contains(d.Error, w) {
				t.Errorf("%s: status %s error %q, want failure containing %q", d.Path, d.Status, d.Error, w)
			}
		} else if d.Status != StatusOK {
			t.Errorf("%s: %s %s", d.Path, d.Status, d.Error)
		}
	}
	// Unchanged failed files are not retried.
	res, err = s.Sync(context.Background(), SyncOptions{Vault: "v", Complete: true, MaxBytes: 1000}, files)
	if err != nil || res.Unchanged != 6 {
		t.Fatalf("resync = %+v, %v", res, err)
	}
	counts, _ := s.Counts()
	if c := counts["v"]; c.Documents != 1 || c.Failed != 5 {
		t.Errorf("counts = %+v", c)
	}
}

func TestUnreadableFile(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root can read a mode-000 file")
	}
	vault := t.TempDir()
	s := openStore(t, t.TempDir())
	defer s.Close()
	files := vaultFiles(t, vault, map[string]string{"secret.md": "# x\n\ny\n"})
	os.Chmod(files[0].Abs, 0)
	res, err := s.Sync(context.Background(), SyncOptions{Vault: "v", Complete: true}, files)
	if err != nil || res.Failed != 1 {
		t.Fatalf("sync = %+v, %v", res, err)
	}
	d, _ := s.Document("v", "secret.md")
	if d == nil || !strings.Contains(d.Error, "unreadable") {
		t.Fatalf("doc = %+v", d)
	}
}

func TestTooLargeForOneTransactionIsFailedNotSplit(t *testing.T) {
	vault := t.TempDir()
	s := openStore(t, t.TempDir())
	defer s.Close()
	// Distinct words defeat compression of the postings block; the text
	// alone is over the transaction limit.
	var b strings.Builder
	for i := 0; b.Len() < int(s.db.MaxBatchSize()); i++ {
		b.WriteString("w")
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), 1+i%7))
		b.WriteString(time.Duration(i).String())
		b.WriteString(" ")
	}
	files := vaultFiles(t, vault, map[string]string{"huge.txt": b.String(), "small.md": "# Small\n\nfine\n"})
	res, err := s.Sync(context.Background(), SyncOptions{Vault: "v", Complete: true}, files)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 1 || res.Indexed != 1 {
		t.Fatalf("sync = %+v", res)
	}
	d, _ := s.Document("v", "huge.txt")
	if d == nil || d.Status != StatusFailed || !strings.Contains(d.Error, "too large") {
		t.Fatalf("huge.txt = %+v", d)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestSecondOpenIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := openStore(t, dir)
	defer s.Close()
	if _, err := Open(Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second open: %v", err)
	}
}

func TestChangedChunkingReindexesUnchangedFiles(t *testing.T) {
	vault := t.TempDir()
	s := openStore(t, t.TempDir())
	defer s.Close()
	files := vaultFiles(t, vault, sampleVault)
	ctx := context.Background()
	if _, err := s.Sync(ctx, SyncOptions{Vault: "v", Complete: true}, files); err != nil {
		t.Fatal(err)
	}
	res, err := s.Sync(ctx, SyncOptions{Vault: "v", Complete: true, Chunk: chunk.Options{ChildChars: 40, ChildOverlap: 5}}, files)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 4 {
		t.Fatalf("after a chunking change: %+v", res)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestVaultsAndDropVault(t *testing.T) {
	s := openStore(t, t.TempDir())
	defer s.Close()
	ctx := context.Background()
	for _, v := range []string{"a", "b", "bb"} {
		if _, err := s.Sync(ctx, SyncOptions{Vault: v, Complete: true}, vaultFiles(t, t.TempDir(), sampleVault)); err != nil {
			t.Fatal(err)
		}
	}
	names, err := s.Vaults()
	if err != nil || strings.Join(names, ",") != "a,b,bb" {
		t.Fatalf("vaults = %v, %v", names, err)
	}
	if n, err := s.DropVault("b"); err != nil || n != 4 {
		t.Fatalf("drop = %d, %v", n, err)
	}
	names, _ = s.Vaults()
	if strings.Join(names, ",") != "a,bb" {
		t.Fatalf("after drop: %v", names)
	}
	for _, h := range s.Search(s.Analyzer().AppendTerms(nil, "tomatoes"), 20, nil) {
		if h.Vault == "b" {
			t.Fatalf("dropped vault still searchable: %+v", h)
		}
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestRuns(t *testing.T) {
	s := openStore(t, t.TempDir())
	defer s.Close()
	for i := range 5 {
		if err := s.PutRun(int64(1000+i), map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	s.PutRun(1004, map[string]int{"n": 44}) // update in place
	runs, err := s.Runs(3)
	if err != nil || len(runs) != 3 {
		t.Fatalf("runs = %s, %v", runs, err)
	}
	if string(runs[0]) != `{"n":44}` || string(runs[2]) != `{"n":2}` {
		t.Fatalf("order: %s", runs)
	}
}
