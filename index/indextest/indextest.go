// Package indextest builds real indexes from real files for tests: a vault
// written to a temporary directory, a Badger store opened on another, and
// an ingestion pass over the one into the other.
package indextest

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/ingest"
	"github.com/ragd/ragd/internal/filestat"
)

// SampleVault is a small vault: three Markdown notes and a text file.
var SampleVault = map[string]string{
	"garden.md":       "---\ntags: [garden]\n---\n# Garden\n\nTomatoes need deep watering twice a week.\n\n## Pests\n\nAphids on the roses; try soapy water.\n",
	"backup.md":       "# Backups\n\nRestic snapshots go to the NAS every night.\n\n## Retention\n\nKeep seven daily snapshots and four weekly ones.\n",
	"notes/travel.md": "# Lisbon\n\nTram 28 climbs through Alfama.\n",
	"inbox.txt":       "Call the plumber about the leaking tap.\n\nBuy tomatoes.\n",
}

// WriteVault writes files (vault path → content) under dir and returns
// their File list.
func WriteVault(t testing.TB, dir string, files map[string]string) []ingest.File {
	t.Helper()
	var out []ingest.File
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
		out = append(out, FileOf(rel, p, fi))
	}
	return out
}

// FileOf describes the file at abs, vault path rel, that fi describes.
func FileOf(rel, abs string, fi fs.FileInfo) ingest.File {
	return ingest.File{Rel: rel, Abs: abs, Size: fi.Size(), ModTime: fi.ModTime(), ID: filestat.Of(fi)}
}

// Restat stats files again, as a scan does after they were written.
func Restat(t testing.TB, files []ingest.File) []ingest.File {
	t.Helper()
	out := make([]ingest.File, len(files))
	for i, f := range files {
		fi, err := os.Stat(f.Abs)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = FileOf(f.Rel, f.Abs, fi)
	}
	return out
}

// Open opens a store in dir; the caller closes it.
func Open(t testing.TB, dir string) *index.Store {
	t.Helper()
	s, err := index.Open(index.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Sync runs an ingestion pass of files (the whole vault) into s with
// default options and fails t on error.
func Sync(t testing.TB, s *index.Store, vault string, files []ingest.File) ingest.SyncResult {
	t.Helper()
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: vault}, files)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// SyncMap writes files under dir and syncs them as vault "v".
func SyncMap(t testing.TB, s *index.Store, dir string, files map[string]string) ingest.SyncResult {
	t.Helper()
	return Sync(t, s, "v", WriteVault(t, dir, files))
}

// Search runs a BM25 search for q (analysed as the store does) and returns
// the paths of the top 10 hits.
func Search(t testing.TB, s *index.Store, q string) []string {
	t.Helper()
	var paths []string
	for _, h := range s.Search(s.Analyzer().AppendTerms(nil, q), 10, nil) {
		paths = append(paths, h.Path)
	}
	return paths
}

// BenchVault indexes, for a benchmark, the shared vault at root (relative
// to the calling package, skipping b when absent) — or the vault named by
// RAGD_BENCH_VAULT, into RAGD_BENCH_DATA when set, so that a large one is
// indexed once — and returns its files and the open store's directory. The
// caller closes the store.
func BenchVault(b *testing.B, root string) (s *index.Store, files []ingest.File, data string) {
	b.Helper()
	files = SharedVault(b, cmp.Or(os.Getenv("RAGD_BENCH_VAULT"), root))
	if data = os.Getenv("RAGD_BENCH_DATA"); data == "" {
		data = b.TempDir()
	}
	s = Open(b, data)
	Sync(b, s, "v", files)
	return s, files, data
}

// SharedVault lists the Markdown files of a vault under ../shared/vaults
// (root is that path relative to the calling test's package), or skips t
// when it is absent.
func SharedVault(t testing.TB, root string) []ingest.File {
	t.Helper()
	var files []ingest.File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(p, ".md") {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, FileOf(filepath.ToSlash(rel), p, fi))
		return nil
	})
	if err != nil {
		t.Skipf("shared vault %s not available: %v", root, err)
	}
	return files
}

// BEIRVault writes the corpus of a BEIR set (evalDir/set/corpus.jsonl) as
// one Markdown file per document under a temporary directory and returns
// the file list, or skips t when the set is absent.
func BEIRVault(t testing.TB, evalDir, set string) []ingest.File {
	t.Helper()
	f, err := os.Open(filepath.Join(evalDir, set, "corpus.jsonl"))
	if err != nil {
		t.Skipf("BEIR set %s not available: %v", set, err)
	}
	defer f.Close()
	dir := t.TempDir()
	var files []ingest.File
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var d struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatal(err)
		}
		name := strings.ReplaceAll(d.ID, "/", "_") + ".md"
		body := "# " + d.Title + "\n\n" + d.Text + "\n"
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, ingest.File{Rel: name, Abs: p, Size: int64(len(body)), ModTime: time.Now()})
	}
	return files
}
