// Package vector is ragd's in-memory vector index: chunk embeddings are kept
// in Badger (the source of truth) and served from an Index defined here.
//
// Three implementations share one small interface:
//
//   - Exact: a flat scan over one contiguous slab of vectors. Perfect recall,
//     cost linear in the number of vectors; best for small collections and for
//     filtered queries that admit few keys.
//   - HNSW: our own Hierarchical Navigable Small World graph (Malkov &
//     Yashunin, "Efficient and robust approximate nearest neighbor search
//     using Hierarchical Navigable Small World graphs", 2016/2018), with the
//     heuristic neighbour selection of their Algorithm 4, tombstone deletes
//     whose neighbourhoods are repaired in batches (hnsw_delete.go), and
//     fine-grained locking so that inserts run in parallel with each other
//     and with searches. On GloVe 100-d it matches hnswlib's recall and
//     speed (see annbench/).
//   - Auto: exact below a size threshold, HNSW above it, and exact again for
//     filtered queries whose filter admits few keys.
//
// # Why not github.com/coder/hnsw
//
// The design first named github.com/coder/hnsw, whose API shape (Add, Delete,
// Search, Len, Dims, Export/Import) this package keeps in spirit. Its only
// release served by the module proxy, v0.6.1, is not usable (the test in
// coderhnsw_test.go measures it against this package: BenchmarkCoderHNSWRecall
// and TestCoderHNSWPanics):
//
//   - its heap.Heap is a min-heap, but the search reads Max()/PopLast() as if
//     it were a max-heap, so the candidate list evicts the wrong elements;
//   - its layer search keeps only k results and stops as soon as no candidate
//     beats the best one found so far, so raising EfSearch changes nothing
//     (recall@10 against exact ≈ 0.33 on 10k clustered 64-d unit vectors);
//   - the neighbour repair in Delete hard-codes cosine distance, whatever
//     distance function the graph uses;
//   - deleting the entry point leaves a stale entry, and re-adding a key,
//     Add → Delete → Add, or deleting many nodes then searching panics;
//   - it has no locking, and Search returns unsorted results without scores.
//
// These are upstream issues #10, #13 and #15 (fixed by pull requests merged
// after v0.6.1, which the proxy does not serve).
//
// # Conventions
//
// Vectors are L2-normalised copies of what the caller passes, so a score is
// the cosine similarity of the query and a stored vector (their dot product),
// higher is better. Keys are caller-chosen uint64s (ragd uses chunk ids).
// Every Index is safe for concurrent use.
package vector

import (
	"fmt"
	"io"
	"math"
)

// Key identifies a stored vector (ragd uses the chunk id).
type Key = uint64

// Filter reports whether a key is in scope for a search. A nil Filter admits
// every key. It is called while the index holds its read lock, so it must not
// call back into the index's mutating methods.
type Filter func(Key) bool

// Neighbor is one search hit.
type Neighbor struct {
	Key Key
	// Score is the cosine similarity of the query and the stored vector (the
	// dot product of the two unit vectors): 1 is identical, higher is better.
	Score float32
}

// Index is a set of vectors searchable by cosine similarity.
type Index interface {
	// Add stores vec under key, replacing any vector already stored under
	// it. The index keeps an L2-normalised copy; the caller's slice is not
	// retained. It panics if len(vec) != Dims().
	Add(key Key, vec []float32)
	// Delete removes key and reports whether it was present.
	Delete(key Key) bool
	// Search returns up to k stored vectors most similar to q, best first.
	// With a filter, only keys the filter admits are returned, and k of them
	// are returned whenever at least k stored keys are in scope.
	Search(q []float32, k int, filter Filter) []Neighbor
	// Len is the number of stored (not deleted) vectors.
	Len() int
	// Dims is the dimension every vector must have.
	Dims() int
	// Save writes a snapshot that Load reads back. Adds and deletes wait
	// while it writes; searches do not, so writing w may be slow.
	Save(w io.Writer) error
}

// normalized returns a unit-length copy of v. A zero vector stays zero (its
// score against anything is 0). It panics on a dimension mismatch.
func normalized(v []float32, dims int) []float32 {
	if len(v) != dims {
		panic(dimError(len(v), dims))
	}
	out := make([]float32, dims)
	copy(out, v)
	normalizeInPlace(out)
	return out
}

// normalizeInPlace scales v to unit length unless it is zero.
func normalizeInPlace(v []float32) {
	n := dot(v, v)
	if n == 0 || math.IsNaN(float64(n)) || math.IsInf(float64(n), 0) {
		return
	}
	s := float32(1 / math.Sqrt(float64(n)))
	for i := range v {
		v[i] *= s
	}
}

func dimError(got, want int) error {
	return fmt.Errorf("vector: dimension mismatch: got %d, index has %d", got, want)
}
