package httprerank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/internal/httpx"
)

// Version of this backend, reported in RerankerInfo.
const Version = "1"

// Reranker is the httprerank backend; unusable until Configure.
type Reranker struct {
	mu     sync.RWMutex
	cfg    *Config
	client *httpx.Client
}

var (
	_ plugins.Reranker     = (*Reranker)(nil)
	_ plugins.Configurable = (*Reranker)(nil)
)

// New returns an unconfigured Reranker.
func New() *Reranker { return &Reranker{} }

// Configure decodes opts; it does not contact the server.
func (r *Reranker) Configure(_ context.Context, opts plugins.Options) error {
	cfg, err := parseConfig(opts)
	if err != nil {
		return fmt.Errorf("httprerank: %w", err)
	}
	client, err := cfg.Client(cfg.API)
	if err != nil {
		return fmt.Errorf("httprerank: %s: %w", cfg.API, err)
	}
	r.mu.Lock()
	r.cfg, r.client = &cfg, client
	r.mu.Unlock()
	return nil
}

func (r *Reranker) state() (*Config, *httpx.Client, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.cfg == nil {
		return nil, nil, errors.New("httprerank: not configured")
	}
	return r.cfg, r.client, nil
}

// RerankerInfo names the API and model.
func (r *Reranker) RerankerInfo(context.Context) (plugins.RerankerInfo, error) {
	cfg, _, err := r.state()
	if err != nil {
		return plugins.RerankerInfo{}, err
	}
	return plugins.RerankerInfo{Name: cfg.API, Version: Version, Model: cfg.Model}, nil
}

// Rerank returns the server's relevance score of each candidate, in
// input order.
func (r *Reranker) Rerank(ctx context.Context, query string, cands []plugins.Candidate) ([]float64, error) {
	cfg, client, err := r.state()
	if err != nil {
		return nil, err
	}
	scores := make([]float64, len(cands))
	for start := 0; start < len(cands); start += cfg.BatchSize {
		end := min(start+cfg.BatchSize, len(cands))
		docs := make([]string, end-start)
		for i, c := range cands[start:end] {
			docs[i] = document(c, cfg)
		}
		got, err := call(ctx, client, cfg, query, docs)
		if err != nil {
			return nil, err
		}
		copy(scores[start:], got)
	}
	return scores, nil
}

// document is the text sent for c.
func document(c plugins.Candidate, cfg *Config) string {
	text := c.Text
	if cfg.IncludeTitle {
		var head []string
		if c.Title != "" {
			head = append(head, c.Title)
		}
		if c.Heading != "" && c.Heading != c.Title {
			head = append(head, c.Heading)
		}
		if len(head) > 0 {
			text = strings.Join(head, " > ") + "\n\n" + text
		}
	}
	return truncate(text, cfg.MaxChars)
}

func truncate(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// result is one (index, score) pair of a reply.
type result struct {
	Index int
	Score float64
}

// scatter puts the results back in input order; each index in [0, n)
// must appear exactly once.
func scatter(api, url string, n int, res []result) ([]float64, error) {
	out := make([]float64, n)
	seen := make([]bool, n)
	for _, r := range res {
		if r.Index < 0 || r.Index >= n {
			return nil, fmt.Errorf("%s: POST %s: reply has index %d for %d documents", api, url, r.Index, n)
		}
		if seen[r.Index] {
			return nil, fmt.Errorf("%s: POST %s: reply repeats index %d", api, url, r.Index)
		}
		if math.IsNaN(r.Score) || math.IsInf(r.Score, 0) {
			return nil, fmt.Errorf("%s: POST %s: non-finite score for document %d", api, url, r.Index)
		}
		seen[r.Index], out[r.Index] = true, r.Score
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("%s: POST %s: reply has no score for document %d of %d", api, url, i, n)
		}
	}
	return out, nil
}
