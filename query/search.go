// Package query answers retrieval requests: it analyses the query text,
// scopes the search to the requested vaults and folders inside retrieval
// (never by filtering a ranked list afterwards), ranks chunks with the
// index's BM25 and turns the hits into results with exact citations.
//
// Later channels (vectors, the entity graph) and fusion plug in here.
package query

import (
	"context"
	"fmt"
	"strings"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/analyze"
)

// Index is what the engine needs from the store.
type Index interface {
	Analyzer() *analyze.Analyzer
	Search(terms []string, k int, filter index.Filter) []index.Hit
	GraphSearch(terms []string, k int, filter index.Filter) ([]index.Hit, []index.GraphMatch)
	Embedded(inScope index.Filter) map[[2]string]bool
	Chunks(refs []index.ChunkRef) ([]index.Chunk, error)
}

// Request is one retrieval request.
type Request struct {
	Text       string
	K          int
	Vaults     []string // empty: all vaults
	PathPrefix string   // vault-relative, slash-separated
	NoText     bool     // skip loading chunk text
	// Channels limits retrieval to these channels (ChannelLexical,
	// ChannelGraph); empty means all.
	Channels []string
	// Weights overrides channel fusion weights for this request.
	Weights map[string]float64
}

// Result is one ranked chunk with its citation.
type Result struct {
	Ref       index.ChunkRef
	Vault     string
	Path      string
	Title     string
	Heading   []string
	LineStart int
	LineEnd   int
	Score     float64
	Text      string
}

// Engine runs queries against an Index.
type Engine struct {
	ix  Index
	opt Options
}

// NewEngine returns an Engine over ix with the default options.
func NewEngine(ix Index) *Engine { return &Engine{ix: ix, opt: DefaultOptions} }

// WithOptions returns a copy of e using opt.
func (e *Engine) WithOptions(opt Options) *Engine { return &Engine{ix: e.ix, opt: opt} }

// Terms returns the analysed terms of a query.
func (e *Engine) Terms(text string) []string { return e.ix.Analyzer().AppendTerms(nil, text) }

// Search runs req and returns at most req.K results, best first.
func (e *Engine) Search(ctx context.Context, req Request) ([]Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	terms := e.Terms(req.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	hits := e.retrieve(terms, req)
	out := make([]Result, 0, len(hits))
	for _, h := range hits {
		out = append(out, Result{Ref: h.Ref, Vault: h.Vault, Path: h.Path, Title: h.Title,
			Heading: h.Heading, LineStart: h.LineStart, LineEnd: h.LineEnd, Score: h.Score})
	}
	if req.NoText {
		return out, nil
	}
	refs := make([]index.ChunkRef, len(hits))
	for i, h := range hits {
		refs[i] = h.Ref
	}
	chunks, err := e.ix.Chunks(refs)
	if err != nil {
		return nil, fmt.Errorf("query: load chunks: %w", err)
	}
	kept := out[:0]
	for i, r := range out {
		if chunks[i].Ref != r.Ref {
			continue // the document changed after ranking; the hit is gone
		}
		r.Text = chunks[i].Text
		kept = append(kept, r)
	}
	return kept, nil
}

// scope builds the in-retrieval filter for the requested vaults and folder.
func scope(vaults []string, prefix string) index.Filter {
	prefix = strings.TrimPrefix(prefix, "/")
	if len(vaults) == 0 && prefix == "" {
		return nil
	}
	set := make(map[string]bool, len(vaults))
	for _, v := range vaults {
		set[v] = true
	}
	return func(vault, path string) bool {
		if len(set) > 0 && !set[vault] {
			return false
		}
		return prefix == "" || strings.HasPrefix(path, prefix)
	}
}
