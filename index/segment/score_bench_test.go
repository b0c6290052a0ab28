package segment_test

import (
	"cmp"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/ragd/ragd/bench/scale"
	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/segment"
	"github.com/ragd/ragd/query/metrics"
)

// BenchmarkScoringHub compares, in one process on one index, the streaming
// scorer (the default: the words' postings merged in chunk order, one
// pass) with word-by-word scoring (the scorer it replaced): the
// notes of obsidian-hub (or RAGD_BENCH_VAULT; skipped without it) in a
// flushed segment, the 1–3 word queries ragd-bench scale draws from it,
// k = 100 and three passages as the daemon asks; or a BEIR set's documents
// and queries (RAGD_BENCH_BEIR, a directory such as ../shared/eval/scifact). Each iteration runs one
// query both ways, each first in turn; each way's mean, p50 and p95 are
// reported.
func BenchmarkScoringHub(b *testing.B) {
	an := analyze.New()
	var notes []*segment.Note
	var texts []string
	resolve := func(string) []uint64 { return nil }
	if beir := os.Getenv("RAGD_BENCH_BEIR"); beir != "" {
		var qs map[string]string
		notes, _, qs = loadBEIR(b, an, beir)
		for _, t := range qs {
			texts = append(texts, t)
		}
		sort.Strings(texts)
	} else {
		dir := cmp.Or(os.Getenv("RAGD_BENCH_VAULT"), "../../../shared/vaults/obsidian-hub")
		if _, err := os.Stat(dir); err != nil {
			b.Skipf("vault %s not available: %v", dir, err)
		}
		var names map[string][]uint64
		notes, names = loadVault(b, an, dir)
		resolve = func(key string) []uint64 { return names[key] }
		var err error
		if texts, err = scale.Queries(dir, 200, 1); err != nil {
			b.Fatal(err)
		}
	}
	set, _, err := segment.OpenSet(segment.Options{Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer set.Close()
	set.Apply(1, nil, notes)
	if err := set.Flush(b.Context()); err != nil {
		b.Fatal(err)
	}
	v := set.View()
	defer v.Release()
	queries := make([]segment.Query, len(texts))
	for i, t := range texts {
		queries[i] = segment.Query{Groups: groupsOf(an, t), K: 100, Passages: 3, Resolve: resolve, ResolveGen: 1}
	}
	var lat [2][]float64 // streaming, word by word
	var byWords [2][4]float64
	var nWords [4]float64
	i := 0
	for b.Loop() {
		q := queries[i%len(queries)]
		for k := range 2 {
			way := (i + k) % 2
			t0 := time.Now()
			if way == 0 {
				v.Search(q, segment.DefaultParams)
			} else {
				v.SearchWordByWord(q, segment.DefaultParams)
			}
			lat[way] = append(lat[way], float64(time.Since(t0).Nanoseconds())/1e6)
			byWords[way][min(len(q.Groups), 3)] += lat[way][len(lat[way])-1]
		}
		nWords[min(len(q.Groups), 3)]++
		i++
	}
	for way, name := range []string{"stream", "taat"} {
		sum := 0.0
		for _, x := range lat[way] {
			sum += x
		}
		b.ReportMetric(sum/float64(len(lat[way])), name+"-mean-ms")
		b.ReportMetric(metrics.Percentile(lat[way], 50), name+"-p50-ms")
		b.ReportMetric(metrics.Percentile(lat[way], 95), name+"-p95-ms")
		if os.Getenv("RAGD_BENCH_WORDS") != "" {
			for w := 1; w <= 3; w++ {
				b.ReportMetric(byWords[way][w]/max(nWords[w], 1), fmt.Sprintf("%s-%dw-mean-ms", name, w))
			}
		}
	}
}
