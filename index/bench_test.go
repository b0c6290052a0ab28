package index

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sharedEval is where the BEIR sets live relative to this package; the
// benchmarks skip when they are absent.
const sharedEval = "../../shared/eval"

// writeBEIRVault writes a BEIR corpus as one Markdown file per document and
// returns the file list, or skips b when the data set is absent.
func writeBEIRVault(b *testing.B, set string) (string, []File) {
	b.Helper()
	f, err := os.Open(filepath.Join(sharedEval, set, "corpus.jsonl"))
	if err != nil {
		b.Skipf("BEIR set %s not available: %v", set, err)
	}
	defer f.Close()
	dir := b.TempDir()
	var files []File
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var d struct{ ID, Title, Text string }
		var raw struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			b.Fatal(err)
		}
		d.ID, d.Title, d.Text = raw.ID, raw.Title, raw.Text
		name := strings.ReplaceAll(d.ID, "/", "_") + ".md"
		body := "# " + d.Title + "\n\n" + d.Text + "\n"
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			b.Fatal(err)
		}
		files = append(files, File{Rel: name, Abs: p, Size: int64(len(body)), ModTime: time.Now()})
	}
	return dir, files
}

// BenchmarkSyncSciFact measures a cold index of SciFact (5,183 notes):
// read, hash, chunk, analyse and commit to a fresh store.
func BenchmarkSyncSciFact(b *testing.B) {
	_, files := writeBEIRVault(b, "scifact")
	var bytes int64
	for _, f := range files {
		bytes += f.Size
	}
	b.SetBytes(bytes)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := Open(Options{Dir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := s.Sync(context.Background(), SyncOptions{Vault: "v", Complete: true}, files); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		s.Close()
		b.StartTimer()
	}
}

// BenchmarkSearchSciFact measures BM25 over the in-memory postings for
// SciFact's test queries (k = 100, no chunk loading).
func BenchmarkSearchSciFact(b *testing.B) {
	_, files := writeBEIRVault(b, "scifact")
	s, err := Open(Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Sync(context.Background(), SyncOptions{Vault: "v", Complete: true}, files); err != nil {
		b.Fatal(err)
	}
	qf, err := os.ReadFile(filepath.Join(sharedEval, "scifact", "queries.jsonl"))
	if err != nil {
		b.Skip(err)
	}
	var queries [][]string
	for _, line := range strings.Split(strings.TrimSpace(string(qf)), "\n") {
		var q struct{ Text string }
		json.Unmarshal([]byte(line), &q)
		queries = append(queries, s.Analyzer().AppendTerms(nil, q.Text))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Search(queries[i%len(queries)], 100, nil)
	}
}
