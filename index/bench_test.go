package index_test

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragd/ragd/bench/scale"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/query/metrics"
)

// sharedEval is where the BEIR sets live relative to this package; the
// benchmarks skip when they are absent.
const sharedEval = "../../shared/eval"

// sciFactStore indexes SciFact's corpus with its segments on disk, as a
// daemon has them once a pass is over (no merge running beside the
// queries), and returns the store and the test queries' texts; it skips b
// without the set.
func sciFactStore(b *testing.B) (*index.Store, []string) {
	files := indextest.BEIRVault(b, sharedEval, "scifact")
	s := indextest.Open(b, b.TempDir())
	b.Cleanup(func() { s.Close() })
	indextest.Sync(b, s, "v", files)
	if err := s.Settle(context.Background()); err != nil {
		b.Fatal(err)
	}
	qf, err := os.ReadFile(filepath.Join(sharedEval, "scifact", "queries.jsonl"))
	if err != nil {
		b.Skip(err)
	}
	var queries []string
	for _, line := range strings.Split(strings.TrimSpace(string(qf)), "\n") {
		var q struct{ Text string }
		json.Unmarshal([]byte(line), &q)
		queries = append(queries, q.Text)
	}
	return s, queries
}

// BenchmarkSearchSciFact measures BM25 over the chunks for SciFact's test
// queries (k = 100, no chunk loading).
func BenchmarkSearchSciFact(b *testing.B) {
	s, texts := sciFactStore(b)
	queries := make([][]string, len(texts))
	for i, t := range texts {
		queries[i] = s.Analyzer().AppendTerms(nil, t)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Search(queries[i%len(queries)], 100, nil)
	}
}

// BenchmarkSearchNotesSciFact measures the daemon's lexical channel: notes
// ranked by BM25F with proximity and their best passages (k = 100).
func BenchmarkSearchNotesSciFact(b *testing.B) {
	s, queries := sciFactStore(b)
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		if _, err := s.SearchNotes(index.LexicalQuery{Text: queries[i%len(queries)], K: 100, Passages: 3}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's CPU time (user and system) so far: on a shared
// machine it varies far less with the load than the wall time does.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSearchNotesHub measures the daemon's lexical channel as the
// default search calls it (k = 100 notes for fusion and rerank, three more
// passages a note) on obsidian-hub (or RAGD_BENCH_VAULT), with the 1–3
// word queries ragd-bench scale draws from the vault.
func BenchmarkSearchNotesHub(b *testing.B) {
	root := cmp.Or(os.Getenv("RAGD_BENCH_VAULT"), "../../shared/vaults/obsidian-hub")
	s, _, _ := indextest.BenchVault(b, root)
	defer s.Close()
	if err := s.Settle(context.Background()); err != nil {
		b.Fatal(err)
	}
	queries, err := scale.Queries(root, 200, 1)
	if err != nil {
		b.Fatal(err)
	}
	lat := make([]float64, 0, b.N)
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := s.SearchNotes(index.LexicalQuery{Text: queries[i%len(queries)], K: 100, Passages: 3}); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, float64(time.Since(t0).Microseconds())/1000)
	}
	b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(metrics.Percentile(lat, 50), "p50-ms")
	b.ReportMetric(metrics.Percentile(lat, 95), "p95-ms")
}
