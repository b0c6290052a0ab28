// Package heuristic is ragd's default reranker: no model, no network, a
// deterministic rescoring of the fused candidate list.
//
// The score of a candidate is
//
//	fused + heading_weight·h + title_weight·t − diversity_penalty·k + recency_weight·r
//
// where
//
//   - fused is the candidate's fused (retrieval) score, min–max normalised
//     over the list to [0, 1] (all 1 when every score is equal);
//   - h and t are the fractions of the query's terms found in the
//     candidate's heading path and in the note's title (the file name
//     without extension when the title is empty) or, when one of them
//     holds more, in one of the note's aliases: an alias is another title
//     of the note (a query naming a page by its old name, "the old
//     Plugins/Starred page", asks for the note that answers to it). Terms
//     are produced by the BM25 analyzer (lower-cased, stop words dropped,
//     stemmed), so "Indexing" in a heading matches the query "index";
//   - k is the number of candidates from the same file (vault and path)
//     with a higher fused score — so the 2nd chunk of a file loses one
//     diversity_penalty, the 3rd two, and so on, MMR-style. The order is
//     the fused-score order (ties: by candidate ID), not the final one,
//     which keeps the rule simple, deterministic and independent of the
//     candidates' positions in the list;
//   - r is the candidate's modification time mapped to [0, 1] over the
//     list (oldest 0, newest 1; all 0 when the times are equal or unset).
//     Its default weight is tiny: recency only breaks ties.
//
// Scores are returned in input order; the caller sorts.
package heuristic

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/internal/options"
)

// Version of the scoring rules, reported in RerankerInfo.
const Version = "2" // 2: aliases count as titles

// Config holds the weights, all options of the same names.
type Config struct {
	HeadingWeight    float64 `json:"heading_weight"`    // default 0.2
	TitleWeight      float64 `json:"title_weight"`      // default 0.15
	DiversityPenalty float64 `json:"diversity_penalty"` // default 0.1
	RecencyWeight    float64 `json:"recency_weight"`    // default 1e-6
}

// Defaults returns the default weights.
func Defaults() Config {
	return Config{HeadingWeight: 0.2, TitleWeight: 0.15, DiversityPenalty: 0.1, RecencyWeight: 1e-6}
}

// Reranker is the heuristic reranker. New returns it with the default
// weights; Configure may change them.
type Reranker struct {
	mu  sync.RWMutex
	cfg Config
	an  *analyze.Analyzer
}

// maxAliases bounds the aliases of a candidate that are read: each is
// analysed, and a note listing hundreds must not slow every query it is a
// candidate of.
const maxAliases = 32

var (
	_ plugins.Reranker     = (*Reranker)(nil)
	_ plugins.Configurable = (*Reranker)(nil)
)

// New returns a Reranker with the default weights.
func New() *Reranker { return &Reranker{cfg: Defaults(), an: analyze.New()} }

// Configure sets the weights from opts; unset ones keep their defaults.
func (r *Reranker) Configure(_ context.Context, opts plugins.Options) error {
	c := Defaults()
	if err := options.Decode(opts, &c); err != nil {
		return fmt.Errorf("heuristic: %w", err)
	}
	for name, w := range map[string]float64{"heading_weight": c.HeadingWeight, "title_weight": c.TitleWeight,
		"diversity_penalty": c.DiversityPenalty, "recency_weight": c.RecencyWeight} {
		if w < 0 {
			return fmt.Errorf("heuristic: option %q: %v is negative", name, w)
		}
	}
	r.mu.Lock()
	r.cfg = c
	r.mu.Unlock()
	return nil
}

// RerankerInfo names the reranker.
func (r *Reranker) RerankerInfo(context.Context) (plugins.RerankerInfo, error) {
	return plugins.RerankerInfo{Name: "heuristic", Version: Version, MetadataOnly: true}, nil
}

// Rerank returns one score per candidate, in input order.
func (r *Reranker) Rerank(_ context.Context, query string, cands []plugins.Candidate) ([]float64, error) {
	r.mu.RLock()
	c := r.cfg
	r.mu.RUnlock()
	scores := make([]float64, len(cands))
	if len(cands) == 0 {
		return scores, nil
	}
	terms := r.terms(query)
	leads := analyze.LeadsOf(terms)
	fused := normalized(cands)
	recency := recencies(cands)
	repeats := sameFileAbove(cands)
	for i, cand := range cands {
		s := fused[i] - c.DiversityPenalty*float64(repeats[i]) + c.RecencyWeight*recency[i]
		if len(terms) > 0 {
			h := r.coverage(terms, &leads, cand.Heading)
			t := h // a note's first section is often headed by its title
			if tt := title(cand); tt != cand.Heading {
				t = r.coverage(terms, &leads, tt)
			}
			for _, a := range cand.Aliases[:min(len(cand.Aliases), maxAliases)] {
				if t == 1 {
					break
				}
				t = max(t, r.coverage(terms, &leads, a))
			}
			s += c.HeadingWeight * h
			s += c.TitleWeight * t
		}
		scores[i] = s
	}
	return scores, nil
}

// terms returns the distinct analysed terms of s.
func (r *Reranker) terms(s string) []string {
	var ts []string
	r.an.Terms(s, func(t string) {
		if !slices.Contains(ts, t) {
			ts = append(ts, t)
		}
	})
	return ts
}

// coverage is the fraction of terms (distinct) found in field. The field
// is analysed term by term against the query's (only its words that can
// give one of them, leads): nothing is collected.
func (r *Reranker) coverage(terms []string, leads *analyze.Leads, field string) float64 {
	if field == "" {
		return 0
	}
	var buf [32]bool
	found := buf[:0]
	if len(terms) <= len(buf) {
		found = buf[:len(terms)]
	} else {
		found = make([]bool, len(terms))
	}
	n := 0
	r.an.Match(field, analyze.English, leads, func(tk analyze.Token) {
		for i, q := range terms {
			if q == tk.Term && !found[i] {
				found[i] = true
				n++
			}
		}
	})
	return float64(n) / float64(len(terms))
}

// title is the note title, or the file name without its extension.
func title(c plugins.Candidate) string {
	if c.Title != "" {
		return c.Title
	}
	base := path.Base(c.Path)
	if base == "." || base == "/" {
		return ""
	}
	return strings.TrimSuffix(base, path.Ext(base))
}
