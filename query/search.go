// Package query answers retrieval requests with a hybrid pipeline:
//
//  1. plan: filters written in the query (path:, vault:, #tag, after:,
//     before:, mode:) are parsed out of the text (plan.go);
//  2. channels in parallel — BM25, vector (the query embedded with the
//     query prefix), entity graph — each applying the scope inside its own
//     candidate generation, never by filtering a global top-k (channels.go);
//  3. fusion: a convex combination of min-max normalised scores or weighted
//     reciprocal rank fusion (fuse.go);
//  4. child → parent expansion: each hit carries its parent section;
//  5. rerank with the configured reranker (rerank.go);
//  6. safety threshold and denoising, grounded flag and suggestions
//     (ground.go);
//  7. citations checked against the files on disk (files.go), context
//     building with merged, cited ranges (context.go, contextblock.go);
//     "similar notes" for editors (similar.go).
//
// The engine also calibrates the vector channel's similarity floor on the
// index (calibrate.go) and answers graph queries (graph.go).
//
// A channel that cannot answer (no embedder, embedder down) is reported as
// degraded; the query is answered from the others, never failed.
package query

import (
	"context"
	"strings"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/ipc"
)

// Index is what the engine needs from the store.
type Index interface {
	Analyzer() *analyze.Analyzer
	Search(terms []string, k int, filter index.Filter) []index.Hit
	SearchNotes(q index.LexicalQuery) ([]index.NoteHit, error)
	QueryWords(text string, phrases ...string) []index.QueryWord
	LinkSearch(terms []string, embeds bool, k int, filter index.Filter) ([]index.Hit, []index.DocID)
	GraphSearch(terms []string, k int, filter index.Filter) ([]index.Hit, []graph.Match)
	VectorSearch(sig string, q []float32, k int, filter index.Filter) ([]index.Hit, error)
	VectorSearchExact(sig string, q []float32, k int, filter index.Filter) ([]index.Hit, error)
	Embedded(inScope index.Filter) map[[2]string]bool
	MetaFilter(tags []string, after, before time.Time) index.Filter
	Chunks(refs []index.ChunkRef) ([]index.Chunk, error)
	// Aliases returns each document's aliases (the reranker's
	// candidates').
	Aliases(docs []index.DocID) [][]string
	// Cite reads chunks, the parent sections (ChunkRef{Doc, parent
	// ordinal}) and the stats the files were indexed with, for a page of
	// results, in one read of the store.
	Cite(chunks, parents []index.ChunkRef, files []index.FileRef) (index.Cited, error)
	// Document is the stored record of a file, nil when it is not indexed.
	Document(vault, path string) (*index.Document, error)
}

// QueryEmbedder embeds query text for the vector channel.
type QueryEmbedder interface {
	// Signature names the vector space the embedder produces.
	Signature() string
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Candidate is a retrieved chunk offered to a Reranker.
type Candidate struct {
	ID, Text, Path, Vault, Title, Heading string
	Aliases                               []string // the note's other names
	Score                                 float64
	Modified                              time.Time
}

// Reranker scores candidates; one score per candidate, higher is better.
type Reranker interface {
	Rerank(ctx context.Context, query string, cands []Candidate) ([]float64, error)
}

// MetadataReranker is a Reranker that may say it does not read
// Candidate.Text (a heuristic one): the engine then loads text only for
// the results it returns.
type MetadataReranker interface {
	Reranker
	MetadataOnly() bool
}

func needsText(r Reranker) bool {
	m, ok := r.(MetadataReranker)
	return !ok || !m.MetadataOnly()
}

// Request is one retrieval request.
type Request struct {
	Text       string
	K          int
	Vaults     []string // empty: all vaults
	PathPrefix string   // vault-relative, slash-separated
	NoText     bool     // skip loading chunk text
	// Mode is ipc.ModeHybrid (default), ipc.ModeLexical or ipc.ModeVector.
	// Requests are checked when they are decoded (ipc): an unknown mode
	// runs as hybrid.
	Mode string
	// Channels limits retrieval to these channels (ipc.Channels); empty
	// means what Mode implies.
	Channels []string
	// Weights overrides channel fusion weights for this request.
	Weights map[string]float64
	// Explain fills Result.Explain.
	Explain bool
	// Fusion overrides the engine's fusion function for this request.
	Fusion string
	// NoRerank skips the reranker.
	NoRerank bool
	// Passages is how many passages of each note to return (default 1):
	// results come note by note, the best passage first. K counts notes.
	Passages int
	// SnippetWidth is the width of each result's snippet in characters
	// (snippet.DefaultWidth when 0).
	SnippetWidth int
}

// Result is one ranked chunk with its citation: the wire type itself, so
// a result travels from the engine to the client without being copied
// into another shape. A field added to ipc.Result is filled here (in
// cand.result) and reaches every client.
type Result = ipc.Result

// Explain is the per-channel evidence for a result (Request.Explain).
type Explain = ipc.Explain

// ChannelScore is one channel's rank (1-based; 0 = not retrieved) and score.
type ChannelScore = ipc.ChannelScore

// Response is the answer to a Request.
type Response struct {
	Results  []Result
	Grounded bool
	// Suggestions say what to try when the answer is not grounded.
	Suggestions []string
	// Degraded lists channels that could not answer, with DegradedWhy.
	Degraded    []string
	DegradedWhy []string
	Plan        Plan
	// EmbedTime is how long embedding the query took (part of the
	// latency that depends on the embedder, not on ragd).
	EmbedTime time.Duration
}

// Engine runs queries against an Index.
type Engine struct {
	ix       Index
	opt      Options
	embedder QueryEmbedder
	embedErr func() string // why there is no embedder ("" when there is one)
	reranker Reranker
	cal      *calibration      // shared by copies: the floor measured on the index
	roots    map[string]string // vault name → root directory (WithVaults)
}

// NewEngine returns an Engine over ix with the default options and
// neither embedder nor reranker.
func NewEngine(ix Index) *Engine {
	return &Engine{ix: ix, opt: DefaultOptions, cal: &calibration{}}
}

// WithOptions returns a copy of e using opt.
func (e *Engine) WithOptions(opt Options) *Engine { c := *e; c.opt = opt; return &c }

// WithEmbedder returns a copy of e whose vector channel embeds queries with
// qe; why explains a nil qe in degraded answers.
func (e *Engine) WithEmbedder(qe QueryEmbedder, why func() string) *Engine {
	c := *e
	c.embedder, c.embedErr = qe, why
	return &c
}

// WithReranker returns a copy of e that reranks with r (nil: no reranking).
func (e *Engine) WithReranker(r Reranker) *Engine { c := *e; c.reranker = r; return &c }

// Options returns the engine's options.
func (e *Engine) Options() Options { return e.opt }

// Terms returns the analysed terms of a query.
func (e *Engine) Terms(text string) []string { return e.ix.Analyzer().AppendTerms(nil, text) }

// Search runs req: plan, channels, fusion, rerank, threshold, and returns
// at most req.K results, best first, with their parents.
func (e *Engine) Search(ctx context.Context, req Request) (*Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := e.checkVaults(req.Vaults); err != nil {
		return nil, err
	}
	plan := ParsePlan(req.Text)
	if req.Mode == "" {
		req.Mode = plan.Mode
	}
	resp := &Response{Plan: plan}
	filter := e.scopeOf(req, plan)
	cands, err := e.retrieve(ctx, plan, req, filter, resp)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		resp.Suggestions = e.suggest(req, plan, resp)
		return resp, nil
	}
	reranking := e.reranker != nil && e.opt.RerankDepth > 0 && !req.NoRerank
	if reranking {
		// The reranker sees the head of the fused list, with text unless
		// it scores from metadata alone.
		cands = cands[:min(len(cands), max(e.opt.RerankDepth, req.K))]
		if needsText(e.reranker) {
			if cands, err = e.loadText(cands); err != nil {
				return nil, err
			}
		}
		cands = e.rerank(ctx, plan, cands, resp)
	}
	cands = e.denoise(cands)
	// A few spare notes replace those whose document changed since
	// ranking.
	if len(cands) > req.K+spareNotes {
		cands = cands[:req.K+spareNotes]
	}
	out, err := e.results(cands, req, plan)
	if err != nil {
		return nil, err
	}
	if !resp.Grounded {
		resp.Suggestions = e.suggest(req, plan, resp)
		return resp, nil
	}
	resp.Results = out
	return resp, nil
}

// spareNotes is how many notes after the first k results are kept to
// replace those whose document changed since ranking.
const spareNotes = 4

// scopeOf builds the in-retrieval filter from the request's scope and the
// plan's filters. The request's folder and the query's path: filters must
// both hold; notes embedded by in-scope notes are in scope too.
func (e *Engine) scopeOf(req Request, plan Plan) index.Filter {
	filter := scope(req.Vaults, plan.Vaults, append([]string(nil), plan.Paths...))
	p := strings.TrimPrefix(req.PathPrefix, "/")
	if p != "" {
		inner := filter
		filter = func(vault, path string) bool {
			return strings.HasPrefix(path, p) && (inner == nil || inner(vault, path))
		}
	}
	if filter != nil && (p != "" || len(plan.Paths) > 0) {
		// Notes embedded by the notes in scope are part of what those
		// notes show, so their text is in scope too.
		if emb := e.ix.Embedded(filter); len(emb) > 0 {
			inner := filter
			filter = func(vault, path string) bool { return inner(vault, path) || emb[[2]string{vault, path}] }
		}
	}
	return index.And(filter, e.ix.MetaFilter(plan.Tags, plan.After, plan.Before))
}

// scope builds the filter for vaults (request and query filters must both
// admit a vault when both name some) and folder prefixes (any).
func scope(reqVaults, planVaults, prefixes []string) index.Filter {
	set := func(vs []string) map[string]bool {
		if len(vs) == 0 {
			return nil
		}
		m := make(map[string]bool, len(vs))
		for _, v := range vs {
			m[v] = true
		}
		return m
	}
	a, b := set(reqVaults), set(planVaults)
	for i, p := range prefixes {
		prefixes[i] = strings.TrimPrefix(p, "/")
	}
	if a == nil && b == nil && len(prefixes) == 0 {
		return nil
	}
	return func(vault, path string) bool {
		if a != nil && !a[vault] || b != nil && !b[vault] {
			return false
		}
		if len(prefixes) == 0 {
			return true
		}
		for _, p := range prefixes {
			if p == "" || strings.HasPrefix(path, p) {
				return true
			}
		}
		return false
	}
}
