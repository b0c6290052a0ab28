package query

import (
	"sort"
	"strings"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
)

// channels in the order their scores are kept in a candidate.
var channels = [...]string{ipc.ChannelLexical, ipc.ChannelVector, ipc.ChannelGraph}

const nChannels = len(channels)

func channelIndex(name string) int {
	for i, c := range channels {
		if c == name {
			return i
		}
	}
	return -1
}

// Fusion functions.
const (
	FusionConvex = "convex" // Σ weight × min-max normalised score
	FusionRRF    = "rrf"    // Σ weight / (RRFK + rank)
)

// Options tune retrieval, fusion and grounding.
type Options struct {
	// Weights of the channels, by ipc.ChannelLexical, ipc.ChannelVector
	// and ipc.ChannelGraph; a channel with weight 0 is not run in hybrid mode.
	Weights map[string]float64
	Fusion  string  // FusionConvex or FusionRRF
	RRFK    float64 // k of reciprocal rank fusion
	// Depth is how many candidates each channel contributes to fusion, at
	// least k.
	Depth int
	// RerankDepth is how many fused candidates the reranker sees (0: no
	// reranking).
	RerankDepth int
	// MinBM25 and MinSimilarity are the safety floor: a query is grounded
	// when the best lexical score reaches MinBM25 (any lexical match when 0)
	// or the best vector similarity reaches MinSimilarity. Otherwise no
	// results are returned.
	// When MinSimilarity is 0 the floor is the one Engine.Calibrate
	// measured on the index (the similarity meaningless queries reach).
	MinBM25, MinSimilarity float64
	// Alpha drops candidates whose fused score is under Alpha × the best
	// (denoising); 0 keeps all.
	Alpha float64
}

// DefaultOptions were chosen by measurement (docs/architecture.md,
// "Measurements").
//
// Lexical only (no embedder): BM25 as the foundation measured it. The graph
// channel is off: on both vault question sets every graph weight tried
// (0.1 to 1) lowered MRR@10 below BM25 alone; a request turns it on with
// weights {"graph": w}.
//
// With an embedder, the vector weight and fusion come from VectorDefaults,
// per embedder strength, because seed 004's RRF weights (semantic 0.8,
// lexical 0.7) let a weak embedder pull ranking far below BM25 alone.
var DefaultOptions = Options{
	Weights:       map[string]float64{ipc.ChannelLexical: 1, ipc.ChannelVector: 0, ipc.ChannelGraph: 0},
	Fusion:        FusionConvex,
	RRFK:          60,
	Depth:         100,
	RerankDepth:   30,
	MinBM25:       0,
	MinSimilarity: 0,
	Alpha:         0,
}

// weight returns the weight of channel ch for req.
func (o Options) weight(req Request, ch string) float64 {
	if w, ok := req.Weights[ch]; ok {
		return w
	}
	return o.Weights[ch]
}

// cand is a candidate chunk through the pipeline.
type cand struct {
	hit    index.Hit
	text   string
	page   int
	ranks  [nChannels]int     // 1-based; 0 = not retrieved by the channel
	scores [nChannels]float64 // the channel's own score
	fused  float64
	rerank float64
	hasRR  bool
	first  int // position in the earliest list, for ties
}

// result is the candidate as a result, without its parent section
// (attachParents) or file checks (Engine.Search).
func (c *cand) result(explain bool) Result {
	h := c.hit
	r := Result{ID: h.Ref.String(), Vault: h.Vault, Path: h.Path, Title: h.Title,
		Heading: strings.Join(h.Heading, " > "), Headings: h.Heading,
		LineStart: h.LineStart, LineEnd: h.LineEnd, Score: c.fused, Text: c.text, Page: c.page}
	if c.hasRR {
		r.Score = c.rerank
	}
	if explain {
		x := &Explain{Fused: c.fused}
		if c.hasRR {
			x.Reranked = c.rerank
		}
		for i, ch := range channels {
			if c.ranks[i] > 0 {
				x.Channels = append(x.Channels, ChannelScore{Channel: ch, Rank: c.ranks[i], Score: c.scores[i]})
			}
		}
		r.Explain = x
	}
	return r
}

// fuse combines the channels' ranked lists (indexed like channels; nil
// when a channel did not run) into one ranking. A single list keeps its
// own order and scores.
func fuse(opt Options, lists [nChannels][]index.Hit, weights [nChannels]float64) []*cand {
	byRef := make(map[index.ChunkRef]*cand)
	var order []*cand
	running := 0
	for li, list := range lists {
		if len(list) > 0 {
			running++
		}
		for rank, h := range list {
			c := byRef[h.Ref]
			if c == nil {
				c = &cand{hit: h, first: li*1_000_000 + rank}
				byRef[h.Ref] = c
				order = append(order, c)
			}
			c.ranks[li], c.scores[li] = rank+1, h.Score
		}
	}
	for li, list := range lists {
		if len(list) == 0 {
			continue
		}
		w := weights[li]
		if running == 1 {
			for _, h := range list {
				byRef[h.Ref].fused = h.Score
			}
			continue
		}
		switch opt.Fusion {
		case FusionRRF:
			for rank, h := range list {
				byRef[h.Ref].fused += w / (opt.RRFK + float64(rank+1))
			}
		default:
			lo, hi := list[len(list)-1].Score, list[0].Score
			for _, h := range list {
				lo, hi = min(lo, h.Score), max(hi, h.Score)
			}
			for _, h := range list {
				n := 1.0
				if hi > lo {
					n = (h.Score - lo) / (hi - lo)
				}
				byRef[h.Ref].fused += w * n
			}
		}
	}
	sortCands(order, func(c *cand) float64 { return c.fused })
	return order
}

// sortCands orders candidates by key, best first; ties keep the order of
// the earliest list that ranked them.
func sortCands(cs []*cand, key func(*cand) float64) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := key(cs[i]), key(cs[j])
		if a != b {
			return a > b
		}
		return cs[i].first < cs[j].first
	})
}

// HybridDefaults turns the lexical defaults into the defaults with an
// embedder configured: the vector channel joins by convex combination with
// the weight measured on SciFact and Cranfield with the weakest embedder
// ragd ships (docs/architecture.md, "Measurements"), low enough that it can
// only reorder close lexical calls.
func HybridDefaults(o Options) Options {
	o.Weights = map[string]float64{ipc.ChannelLexical: 1, ipc.ChannelVector: 0.05, ipc.ChannelGraph: o.Weights[ipc.ChannelGraph]}
	o.Fusion = FusionConvex
	return o
}
