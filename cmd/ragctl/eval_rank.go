package main

import (
	"context"
	"errors"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query/metrics"
)

// evalDepth is how many distinct documents each evaluation query ranks:
// recall@100 is measured on them.
const evalDepth = 100

// collapse turns a search's results into its ranked documents: each
// document at its best result's place. It is the one place that knows
// results are chunks; were the daemon to answer with notes, it would just
// list their paths.
func collapse(results []ipc.Result) []string {
	paths := make([]string, len(results))
	for i, r := range results {
		paths[i] = r.Path
	}
	return metrics.Dedup(paths)
}

// searchDocs runs one search asking for k results and returns its
// collapsed documents and how many results came back.
type searchDocs func(k int) (docs []string, results int, err error)

// fillDistinct ranks want distinct documents: it asks for want results,
// and while they collapse to fewer than want documents, the daemon
// returned all it was asked for and k is below maxK, asks again with a
// larger k and appends the documents not yet ranked. The first answer's
// order is kept as it is, so metrics at 5 or 10 are those of a k = want
// search; later answers only fill the tail (a deeper search may order its
// head differently, as rerank depth follows k).
func fillDistinct(want, maxK int, search searchDocs) ([]string, error) {
	k := min(want, maxK)
	docs, n, err := search(k)
	if err != nil {
		return nil, err
	}
	for len(docs) < want && n >= k && k < maxK {
		k = nextK(k, len(docs), want, maxK)
		more, m, err := search(k)
		if err != nil {
			return nil, err
		}
		docs = appendNew(docs, more)
		n = m
	}
	if len(docs) > want {
		docs = docs[:want]
	}
	return docs, nil
}

// nextK estimates the k that yields want documents from the results per
// document seen so far, with a quarter to spare, at least doubling k and
// never above maxK.
func nextK(k, found, want, maxK int) int {
	next := 2 * k
	if found > 0 {
		next = max(next, (want*k*5/4+found-1)/found)
	}
	return min(next, maxK)
}

// appendNew appends the ids of more that docs lacks, in order.
func appendNew(docs, more []string) []string {
	seen := make(map[string]bool, len(docs))
	for _, d := range docs {
		seen[d] = true
	}
	for _, d := range more {
		if !seen[d] {
			seen[d] = true
			docs = append(docs, d)
		}
	}
	return docs
}

// rank runs one evaluation query without text and returns up to evalDepth
// distinct ranked paths (see fillDistinct).
func (t *throwaway) rank(ctx context.Context, q string) ([]string, error) {
	return fillDistinct(evalDepth, ipc.MaxK, func(k int) ([]string, int, error) {
		resp, err := t.Client.Search(ctx, t.ret.request(q, k, true))
		if err != nil {
			var ie *ipc.Error
			if errors.As(err, &ie) && ie.Status == 400 {
				return nil, 0, nil // e.g. a query with no searchable terms
			}
			return nil, 0, err
		}
		return collapse(resp.Results), len(resp.Results), nil
	})
}
