package query

import (
	"slices"
	"sort"

	"github.com/ragd/ragd/index"
)

// Retrieval channels.
const (
	ChannelLexical = "bm25"
	ChannelGraph   = "graph"
)

// Options tune fusion.
type Options struct {
	// LexicalWeight and GraphWeight weight each channel in reciprocal rank
	// fusion: score = Σ weight / (RRFK + rank).
	LexicalWeight, GraphWeight float64
	RRFK                       float64
	// Depth is how many candidates each channel contributes to fusion, at
	// least k.
	Depth int
}

// DefaultOptions were chosen by measurement (docs/architecture.md,
// "Measurements"). Seed 004's weights (graph 1.0, lexical 0.7) were the
// starting point, but on both vault question sets every graph weight tried
// (0.1 to 1) lowered MRR@10 below BM25 alone, so the graph channel is not
// fused by default; a request turns it on with weights {"graph": w}.
var DefaultOptions = Options{LexicalWeight: 1.0, GraphWeight: 0, RRFK: 60, Depth: 50}

func (r Request) wants(ch string) bool {
	return len(r.Channels) == 0 || slices.Contains(r.Channels, ch)
}

// retrieve runs the channels, scoped inside retrieval, and fuses them.
// With only one channel answering, its ranking and scores are kept as they
// are.
func (e *Engine) retrieve(terms []string, req Request) []index.Hit {
	opt := e.opt
	if w, ok := req.Weights[ChannelLexical]; ok {
		opt.LexicalWeight = w
	}
	if w, ok := req.Weights[ChannelGraph]; ok {
		opt.GraphWeight = w
	}
	filter := scope(req.Vaults, req.PathPrefix)
	if filter != nil && req.PathPrefix != "" {
		// Notes embedded by the notes in scope are part of what those
		// notes show, so their text is in scope too.
		if emb := e.ix.Embedded(filter); len(emb) > 0 {
			inner := filter
			filter = func(vault, path string) bool { return inner(vault, path) || emb[[2]string{vault, path}] }
		}
	}
	useGraph := req.wants(ChannelGraph) && opt.GraphWeight > 0
	depth := req.K
	if useGraph {
		depth = max(req.K, opt.Depth) // fusion needs candidates below each list's top k
	}
	var lex, graph []index.Hit
	if req.wants(ChannelLexical) {
		lex = e.ix.Search(terms, depth, filter)
	}
	if useGraph {
		graph, _ = e.ix.GraphSearch(terms, depth, filter)
	}
	switch {
	case len(graph) == 0:
		return firstK(lex, req.K)
	case len(lex) == 0:
		return firstK(graph, req.K)
	}
	return firstK(fuse(opt, [][]index.Hit{lex, graph}, []float64{opt.LexicalWeight, opt.GraphWeight}), req.K)
}

// fuse combines ranked lists by weighted reciprocal rank fusion; ties keep
// the order of the first list that ranked the chunk.
func fuse(opt Options, lists [][]index.Hit, weights []float64) []index.Hit {
	type acc struct {
		hit   index.Hit
		score float64
		first int // position in the earliest list, for ties
	}
	byRef := make(map[index.ChunkRef]*acc)
	var order []*acc
	for li, list := range lists {
		for rank, h := range list {
			a := byRef[h.Ref]
			if a == nil {
				a = &acc{hit: h, first: li*1_000_000 + rank}
				byRef[h.Ref] = a
				order = append(order, a)
			}
			a.score += weights[li] / (opt.RRFK + float64(rank+1))
		}
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].score != order[j].score {
			return order[i].score > order[j].score
		}
		return order[i].first < order[j].first
	})
	out := make([]index.Hit, len(order))
	for i, a := range order {
		out[i] = a.hit
		out[i].Score = a.score
	}
	return out
}

func firstK(hs []index.Hit, k int) []index.Hit {
	if len(hs) > k {
		return hs[:k]
	}
	return hs
}
