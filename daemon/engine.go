package daemon

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/host"
	"github.com/ragd/ragd/query"
)

// semanticOff explains how to turn semantic search on.
const semanticOff = "off: ragd runs lexical (BM25) search; to add semantic search declare an embedder " +
	"[[plugin]] (built-in: uselite offline, ollama, openai) and set [search] embedder to its name (docs/config.md)"

// startPlugins prepares the plugin manager (Run starts it in the
// background: the handles wait for their plugin) and builds the query
// engine around the embedder and reranker.
func (d *Daemon) startPlugins() (*host.Manager, error) {
	specs, b := pluginSpecs(d.cfg)
	mgr, err := host.New(specs, host.Config{Logger: d.log})
	if err != nil {
		return nil, fmt.Errorf("plugins: %w", err)
	}
	b.mgr = mgr
	d.backends = b

	eng := d.newEngine()
	if b.embedName != "" {
		emb, err := mgr.Embedder(b.embedName)
		if err != nil {
			mgr.Close()
			return nil, fmt.Errorf("plugins: %w", err)
		}
		d.embedding = newEmbedding(d, b.embedName, emb)
		eng = eng.WithEmbedder(d.embedding, func() string { return d.embedding.lastError() })
	} else {
		eng = eng.WithEmbedder(nil, func() string { return "semantic search is not configured" })
	}
	if b.rerankName != "" {
		r, err := mgr.Reranker(b.rerankName)
		if err != nil {
			mgr.Close()
			return nil, fmt.Errorf("plugins: %w", err)
		}
		eng = eng.WithReranker(newRerankAdapter(r))
	}
	d.engine = eng
	return mgr, nil
}

// newEngine is the query engine over the store with the configured
// options and vaults, without embedder or reranker.
func (d *Daemon) newEngine() *query.Engine {
	roots := make(map[string]string, len(d.cfg.Vaults))
	for _, v := range d.cfg.Vaults {
		roots[v.Name] = v.Path
	}
	return query.NewEngine(d.store).WithOptions(d.queryOptions()).WithVaults(roots)
}

// queryOptions are the engine options: the measured defaults for the
// configured setup, overridden by [search].
func (d *Daemon) queryOptions() query.Options {
	s := d.cfg.Search
	opt := query.DefaultOptions
	if s.Embedder != "" {
		w, kw := query.VectorWeight, query.KeywordVectorScale
		for _, p := range d.cfg.Plugins {
			if p.Name == s.Embedder && p.Builtin == "uselite" {
				w, kw = query.VectorWeightUseLite, query.KeywordVectorScaleUseLite
			}
		}
		if s.KeywordVectorScale != nil {
			kw = *s.KeywordVectorScale
		}
		opt = query.HybridDefaults(opt, w, kw)
	}
	opt.Weights = maps.Clone(opt.Weights)
	maps.Copy(opt.Weights, s.Weights)
	if s.Fusion != "" {
		opt.Fusion = s.Fusion
	}
	if s.Alpha > 0 {
		opt.Alpha = s.Alpha
	}
	if s.MinBM25 > 0 {
		opt.MinBM25 = s.MinBM25
	}
	if s.MinSimilarity > 0 {
		opt.MinSimilarity = s.MinSimilarity
	}
	if s.Reranker == "none" {
		opt.RerankDepth = 0
	}
	return opt
}

func (e *embedding) lastError() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.lastErr != "" {
		return e.lastErr
	}
	if e.sig == "" {
		return "the embedder has not answered yet"
	}
	return ""
}

// rerankAdapter lets the query engine call a reranker plugin.
type rerankAdapter struct {
	r    plugins.Reranker
	once sync.Once
	meta bool
}

func newRerankAdapter(r plugins.Reranker) *rerankAdapter { return &rerankAdapter{r: r} }

// MetadataOnly asks the plugin once whether it reads candidate text; when
// it cannot say, text is sent.
func (a *rerankAdapter) MetadataOnly() bool {
	a.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if info, err := a.r.RerankerInfo(ctx); err == nil {
			a.meta = info.MetadataOnly
		}
	})
	return a.meta
}

func (a *rerankAdapter) Rerank(ctx context.Context, q string, cs []query.Candidate) ([]float64, error) {
	in := make([]plugins.Candidate, len(cs))
	for i, c := range cs {
		in[i] = plugins.Candidate{ID: c.ID, Text: c.Text, Path: c.Path, Vault: c.Vault, Title: c.Title,
			Heading: c.Heading, Aliases: c.Aliases, Score: c.Score, Modified: c.Modified}
	}
	return a.r.Rerank(ctx, q, in)
}
