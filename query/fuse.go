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

const (
	chLex = iota
	chVec
	chGraph
)

func channelIndex(name string) int {
	for i, c := range channels {
		if c == name {
			return i
		}
	}
	return -1
}

// Fusion functions, named in ipc (the wire's names).
const (
	FusionConvex = ipc.FusionConvex // Σ weight × the channel's absolute 0–1 score, over Σ weight
	FusionRRF    = ipc.FusionRRF    // Σ weight / (RRFK + rank)
)

// Options tune retrieval, fusion and grounding.
type Options struct {
	// Weights of the channels, by ipc.ChannelLexical, ipc.ChannelVector
	// and ipc.ChannelGraph; a channel with weight 0 is not run in hybrid mode.
	Weights map[string]float64
	Fusion  string  // FusionConvex or FusionRRF
	RRFK    float64 // k of reciprocal rank fusion
	// Depth is how many notes each channel contributes to fusion, at
	// least k.
	Depth int
	// RerankDepth is how many fused candidates the reranker sees (0: no
	// reranking).
	RerankDepth int
	// MinBM25 and MinSimilarity are the relevance floor. A note is a
	// result only with evidence: a lexical match scoring at least MinBM25
	// (any match when 0), a vector similarity of at least the floor
	// (MinSimilarity, or when 0 the one Engine.Calibrate measured on the
	// index; a vector channel not yet calibrated grounds nothing on its
	// own), or an entity the graph channel matched.
	MinBM25, MinSimilarity float64
	// Alpha drops candidates whose fused score is under Alpha × the best
	// (denoising); 0 keeps all.
	Alpha float64
	// KeywordVectorCut is the share of the vector channel's weight a
	// keyword-shaped query (shape.go) does without, when the weight is the
	// configured one (not a request's own): 0 weighs every query alike, 1
	// leaves keyword queries to the other channels.
	KeywordVectorCut float64
}

// DefaultOptions were chosen by measurement (docs/architecture.md,
// "Measurements").
//
// Lexical only (no embedder). The graph channel is off: on both vault
// question sets every graph weight tried lowered MRR@10; a request turns
// it on with weights {"graph": w}.
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

// weight returns the weight of channel ch for req, whose searched text is
// text.
func (o Options) weight(req Request, ch, text string) float64 {
	if w, ok := req.Weights[ch]; ok {
		return w
	}
	w := o.Weights[ch]
	if ch == ipc.ChannelVector && o.KeywordVectorCut > 0 && keywordShaped(text) {
		w *= 1 - min(o.KeywordVectorCut, 1)
	}
	return w
}

// cand is a candidate note through the pipeline, with the passage it is
// cited by.
type cand struct {
	doc      index.DocID
	hit      index.Hit          // the cited passage
	passages []index.Hit        // the note's matching chunks, best first (hit among them)
	ranks    [nChannels]int     // 1-based; 0 = not retrieved by the channel
	scores   [nChannels]float64 // the channel's own score
	norms    [nChannels]float64 // on the channel's absolute 0–1 scale
	// chunk evidence per channel, for choosing the passage: ordinal → norm
	chunkNorm [nChannels]ordNorms
	fused     float64
	rerank    float64
	hasRR     bool
	first     int    // position in the earliest list, for ties
	text      string // of hit, once loaded (textOK)
	page      int
	textOK    bool
}

// result is the candidate as a result, without its parent section
// (attachParents) or file checks (Engine.Search).
func (c *cand) result(h index.Hit, explain bool) Result {
	r := Result{ID: h.Ref.String(), Vault: h.Vault, Path: h.Path, Title: h.Title,
		Heading: strings.Join(h.Heading, " > "), Headings: h.Heading,
		LineStart: h.LineStart, LineEnd: h.LineEnd, Score: c.fused}
	if c.hasRR {
		r.Score = max(c.rerank, 0) // a configured reranker's own scale
	}
	if explain {
		x := &Explain{Fused: c.fused}
		if c.hasRR {
			x.Reranked = c.rerank
		}
		for i, ch := range channels {
			if c.ranks[i] > 0 {
				x.Channels = append(x.Channels, ChannelScore{Channel: ch, Rank: c.ranks[i], Score: c.scores[i], Norm: c.norms[i]})
			}
		}
		r.Explain = x
	}
	return r
}

// channelLists are the channels' answers, per note.
type channelLists struct {
	lex   []index.NoteHit
	vec   []index.Hit // chunks, best first
	graph []index.Hit // chunks, best first
	floor float64     // the vector channel's noise floor (0: not calibrated)
}

// fuse combines the channels' answers into one ranking of notes. Convex
// fusion adds each channel's absolute 0–1 score times its weight and
// divides by the weights of the channels that ran, so a fused score is a
// 0–1 relevance whatever ran: lexical alone gives the share of the query a
// note matches, vector alone the similarity above the noise floor. A
// strong embedder, whose relevant notes stand far above that floor, pulls
// more than a weak one at the same weight.
func fuse(opt Options, l channelLists, weights [nChannels]float64) []*cand {
	byDoc := make(map[index.DocID]*cand)
	var order []*cand
	get := func(h index.Hit, li, rank int) *cand {
		c := byDoc[h.Ref.Doc]
		if c == nil {
			c = &cand{doc: h.Ref.Doc, hit: h, first: li*1_000_000 + rank}
			byDoc[h.Ref.Doc] = c
			order = append(order, c)
		}
		return c
	}
	for rank, n := range l.lex {
		if len(n.Passages) == 0 {
			continue
		}
		c := get(n.Passages[0], chLex, rank)
		c.ranks[chLex], c.scores[chLex], c.norms[chLex] = rank+1, n.Score, n.Norm
		c.passages = n.Passages
		for _, p := range n.Passages {
			if n.Score > 0 {
				c.chunkNorm[chLex].set(p.Ref.Ord, n.Norm*p.Score/n.Score)
			}
		}
	}
	notesOf := func(li int, hits []index.Hit, norm func(float64) float64) {
		rank := 0
		for _, h := range hits {
			c := byDoc[h.Ref.Doc]
			if c == nil || c.ranks[li] == 0 {
				rank++
				c = get(h, li, rank)
				c.ranks[li], c.scores[li], c.norms[li] = rank, h.Score, norm(h.Score)
				if len(c.passages) == 0 {
					c.passages = []index.Hit{h}
				}
			}
			if _, ok := c.chunkNorm[li].get(h.Ref.Ord); !ok {
				c.chunkNorm[li].set(h.Ref.Ord, norm(h.Score))
				if !hasPassage(c.passages, h.Ref) {
					c.passages = append(c.passages, h)
				}
			}
		}
	}
	notesOf(chVec, l.vec, func(s float64) float64 { return vecNorm(s, l.floor) })
	notesOf(chGraph, l.graph, func(s float64) float64 { return min(1, max(0, s)) })

	running, wsum := 0, 0.0
	for li := range nChannels {
		if weights[li] > 0 && listLen(l, li) > 0 {
			running++
			wsum += weights[li]
		}
	}
	for _, c := range order {
		switch {
		case opt.Fusion == FusionRRF && running > 1:
			for li := range nChannels {
				if c.ranks[li] > 0 {
					c.fused += weights[li] / (opt.RRFK + float64(c.ranks[li]))
				}
			}
		default:
			for li := range nChannels {
				if listLen(l, li) > 0 && weights[li] > 0 {
					c.fused += weights[li] * c.norms[li]
				}
			}
			if wsum > 0 {
				c.fused /= wsum
			}
		}
		c.cite(weights)
	}
	sortCands(order, func(c *cand) float64 { return c.fused })
	return order
}

// ordNorms maps a note's chunk ordinals to a channel's evidence for them:
// a note has a few chunks in a list, so a slice searched in order costs
// less than a map made for every candidate.
type ordNorms []ordNorm

type ordNorm struct {
	ord  uint32
	norm float64
}

func (m ordNorms) get(ord uint32) (float64, bool) {
	for _, e := range m {
		if e.ord == ord {
			return e.norm, true
		}
	}
	return 0, false
}

func (m *ordNorms) set(ord uint32, norm float64) {
	for i := range *m {
		if (*m)[i].ord == ord {
			(*m)[i].norm = norm
			return
		}
	}
	*m = append(*m, ordNorm{ord, norm})
}

func listLen(l channelLists, li int) int {
	switch li {
	case chLex:
		return len(l.lex)
	case chVec:
		return len(l.vec)
	}
	return len(l.graph)
}

func hasPassage(ps []index.Hit, r index.ChunkRef) bool {
	for _, p := range ps {
		if p.Ref == r {
			return true
		}
	}
	return false
}

// cite picks the passage with the most weighted evidence across channels
// (the lexical best on ties) and orders the passages by it.
func (c *cand) cite(weights [nChannels]float64) {
	ev := func(h index.Hit) float64 {
		s := 0.0
		for li := range nChannels {
			n, _ := c.chunkNorm[li].get(h.Ref.Ord)
			s += weights[li] * n
		}
		return s
	}
	sort.SliceStable(c.passages, func(i, j int) bool { return ev(c.passages[i]) > ev(c.passages[j]) })
	if len(c.passages) > 0 {
		c.hit = c.passages[0]
	}
}

// vecNorm maps a cosine similarity onto the vector channel's 0–1 scale:
// 0 at the noise floor (what meaningless queries reach on this index), 1
// at identity. Without a calibrated floor, 0.5 stands in for it.
func vecNorm(sim, floor float64) float64 {
	if floor <= 0 || floor >= 1 {
		floor = 0.5
	}
	return min(1, max(0, (sim-floor)/(1-floor)))
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
// embedder configured: the vector channel joins by convex combination at
// vectorWeight, times keywordScale for a query typed as keywords (shape.go).
// Its scores are similarities above the calibrated noise floor, so at one
// weight an embedder whose answers stand far above its noise (a strong
// model) moves the ranking more than one whose answers barely clear it.
func HybridDefaults(o Options, vectorWeight, keywordScale float64) Options {
	o.Weights = map[string]float64{ipc.ChannelLexical: 1, ipc.ChannelVector: vectorWeight, ipc.ChannelGraph: o.Weights[ipc.ChannelGraph]}
	o.Fusion = FusionConvex
	o.KeywordVectorCut = 1 - keywordScale
	return o
}

// Default vector weights (docs/architecture.md, "Hybrid retrieval"),
// for questions and descriptions and, scaled, for keyword queries.
//
// The offline USE-lite embedder was measured on the vault question sets,
// SciFact and Cranfield: at 0.1 for questions paraphrased questions
// improve most while no other kind, SciFact or Cranfield loses, and
// keyword queries are best left to the lexical channel (any vector weight
// on them moved a relevant note out of the top 5).
//
// Any other embedder — a model behind Ollama or an OpenAI-compatible
// server, or a plugin — is not assumed to be that weak: it joins at 0.3,
// where a clear answer (far above the noise floor) overturns a lexical
// near-tie and a near-noise one does not, and at half that for keyword
// queries, which name what they want in the notes' own words.
const (
	VectorWeight              = 0.3
	KeywordVectorScale        = 0.5
	VectorWeightUseLite       = 0.1
	KeywordVectorScaleUseLite = 0
)
