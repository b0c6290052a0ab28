package index_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
)

func TestSyncSearchAndCitations(t *testing.T) {
	vault := t.TempDir()
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	files := indextest.WriteVault(t, vault, indextest.SampleVault)
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v"}, files)
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
	cs, err := s.Chunks([]index.ChunkRef{h.Ref})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(indextest.SampleVault["backup.md"], "\n")
	cited := strings.Join(lines[h.LineStart-1:h.LineEnd], "\n")
	if !strings.Contains(cited, cs[0].Text) || cs[0].Text == "" {
		t.Errorf("lines %d-%d = %q do not hold chunk text %q", h.LineStart, h.LineEnd, cited, cs[0].Text)
	}
	// What a page of results cites besides text, in one read: the parent
	// section holding the chunk, and the stat the file was indexed with.
	fi, err := os.Stat(filepath.Join(vault, "backup.md"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Cite([]index.ChunkRef{h.Ref, {Doc: h.Ref.Doc, Ord: 999}},
		[]index.ChunkRef{{Doc: h.Ref.Doc, Ord: h.Parent}, {Doc: h.Ref.Doc, Ord: 999}},
		[]index.FileRef{{Vault: "v", Path: "backup.md"}, {Vault: "v", Path: "missing.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if ch := c.Chunks[0]; ch.Ref != h.Ref || ch.Text != cs[0].Text {
		t.Errorf("cited chunk = %+v, want %+v", ch, cs[0])
	}
	if ch := c.Chunks[1]; ch.Ref != (index.ChunkRef{}) {
		t.Errorf("a chunk that does not exist was read: %+v", ch)
	}
	if p := c.Parents[0]; !c.ParentOK[0] || p.LineStart > h.LineStart || p.LineEnd < h.LineEnd || strings.Join(p.Heading, " > ") != "Backups > Retention" {
		t.Errorf("parent = %+v (ok %v), want the section holding lines %d-%d", p, c.ParentOK[0], h.LineStart, h.LineEnd)
	}
	if c.ParentOK[1] {
		t.Errorf("a parent that does not exist was found: %+v", c.Parents[1])
	}
	if st := c.Stats[0]; !c.StatOK[0] || st.Size != fi.Size() || st.ModTime != fi.ModTime().UnixNano() {
		t.Errorf("stat = %+v (ok %v), want size %d time %d", st, c.StatOK[0], fi.Size(), fi.ModTime().UnixNano())
	}
	if c.StatOK[1] {
		t.Errorf("a file that is not indexed has a stat: %+v", c.Stats[1])
	}
	if got := indextest.Search(t, s, "tomatoes"); len(got) != 2 {
		t.Errorf("tomatoes in %v, want garden.md and inbox.txt", got)
	}
	// Scope filter inside retrieval.
	only := s.Search(s.Analyzer().AppendTerms(nil, "tomatoes"), 5, func(_, p string) bool { return strings.HasSuffix(p, ".txt") })
	if len(only) != 1 || only[0].Path != "inbox.txt" {
		t.Errorf("filtered = %+v", only)
	}
}

func TestReopenLoadsSameIndex(t *testing.T) {
	vault, data := t.TempDir(), t.TempDir()
	s := indextest.Open(t, data)
	if _, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v"}, indextest.WriteVault(t, vault, indextest.SampleVault)); err != nil {
		t.Fatal(err)
	}
	want := s.Search(s.Analyzer().AppendTerms(nil, "snapshots tomatoes tram"), 10, nil)
	stats := s.Stats()
	s.Close()

	s = indextest.Open(t, data)
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

func TestTooLargeForOneTransactionIsFailedNotSplit(t *testing.T) {
	vault := t.TempDir()
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	// Distinct words defeat compression of the postings block. The text
	// is under what ingestion refuses unread (ingest's maxText), but its
	// index data (chunks, parents, note record) is over the transaction
	// limit: the commit finds that out.
	var b strings.Builder
	for i := 0; b.Len() < int(s.MaxDocumentBytes())*15/16; i++ {
		b.WriteString("w")
		b.WriteString(strings.Repeat(string(rune('a'+i%26)), 1+i%7))
		b.WriteString(time.Duration(i).String())
		b.WriteString(" ")
	}
	files := indextest.WriteVault(t, vault, map[string]string{"huge.txt": b.String(), "small.md": "# Small\n\nfine\n"})
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v"}, files)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 1 || res.Indexed != 1 {
		t.Fatalf("sync = %+v", res)
	}
	d, _ := s.Document("v", "huge.txt")
	if d == nil || d.Status != index.StatusFailed || !strings.Contains(d.Error, "too large") || !strings.Contains(d.Error, "of index data") {
		t.Fatalf("huge.txt = %+v", d)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestSecondOpenIsRefused(t *testing.T) {
	dir := t.TempDir()
	s := indextest.Open(t, dir)
	defer s.Close()
	if _, err := index.Open(index.Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Fatalf("second open: %v", err)
	}
}

func TestVaultsAndDropVault(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	ctx := context.Background()
	for _, v := range []string{"a", "b", "bb"} {
		if _, err := ingest.New(s, ingest.Options{}).Sync(ctx, ingest.SyncOptions{Vault: v}, indextest.WriteVault(t, t.TempDir(), indextest.SampleVault)); err != nil {
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
	s := indextest.Open(t, t.TempDir())
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

// Per-vault counts are stored as documents are written and read back at
// open; a store written before they were kept counts them once at open.
func TestVaultCountsSurviveReopen(t *testing.T) {
	data := t.TempDir()
	s := indextest.Open(t, data)
	indextest.Sync(t, s, "a", indextest.WriteVault(t, t.TempDir(), indextest.SampleVault))
	indextest.Sync(t, s, "b", indextest.WriteVault(t, t.TempDir(), map[string]string{"x.md": "# X\n\nfine\n", "empty.md": " \n"}))
	want, _ := s.Counts()
	if want["a"] != (index.VaultCount{Documents: 4, Chunks: want["a"].Chunks}) || want["b"].Failed != 1 || want["b"].Documents != 1 {
		t.Fatalf("counts = %+v", want)
	}
	for _, forget := range []bool{false, true} {
		if forget {
			if err := s.ForgetVaultCounts(); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		s = indextest.Open(t, data)
		if got, _ := s.Counts(); !reflect.DeepEqual(got, want) {
			t.Errorf("forgotten %v: after reopen %+v, want %+v", forget, got, want)
		}
		if err := s.Check(); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
}
