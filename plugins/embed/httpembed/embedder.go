package httpembed

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/internal/httpx"
)

// Version of this backend, reported in EmbedderInfo.
const Version = "1"

// probeText is embedded to learn the model's dimensions.
const probeText = "ragd dimension probe"

// provider is one HTTP embedding API.
type provider interface {
	name() string
	// embed sends one batch in one request and returns one vector per text.
	embed(ctx context.Context, c *httpx.Client, cfg *Config, texts []string) ([][]float32, error)
}

// Embedder is the httpembed backend. The zero value (New) is unusable
// until Configure.
type Embedder struct {
	mu     sync.Mutex
	cfg    *Config
	prov   provider
	client *httpx.Client
	dims   int // configured or learned; 0: unknown
}

var (
	_ plugins.Embedder     = (*Embedder)(nil)
	_ plugins.Configurable = (*Embedder)(nil)
)

// New returns an unconfigured Embedder.
func New() *Embedder { return &Embedder{} }

// Configure decodes opts; it does not contact the server.
func (e *Embedder) Configure(_ context.Context, opts plugins.Options) error {
	cfg, err := parseConfig(opts)
	if err != nil {
		return fmt.Errorf("httpembed: %w", err)
	}
	var p provider = ollama{}
	if cfg.Provider == "openai" {
		p = openai{}
	}
	client, err := cfg.Client(p.name())
	if err != nil {
		return fmt.Errorf("httpembed: %s: %w", p.name(), err)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cfg, e.prov, e.client, e.dims = &cfg, p, client, cfg.Dimensions
	return nil
}

func (e *Embedder) state() (*Config, provider, *httpx.Client, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.cfg == nil {
		return nil, nil, nil, errors.New("httpembed: not configured")
	}
	return e.cfg, e.prov, e.client, nil
}

// EmbedderInfo describes the vector space. Without configured dimensions
// it embeds a probe text once to learn them.
func (e *Embedder) EmbedderInfo(ctx context.Context) (plugins.EmbedderInfo, error) {
	cfg, p, _, err := e.state()
	if err != nil {
		return plugins.EmbedderInfo{}, err
	}
	qp, dp := cfg.prefixes()
	info := plugins.EmbedderInfo{
		Name:           p.name(),
		Version:        Version,
		Model:          cfg.Model,
		QueryPrefix:    qp,
		DocumentPrefix: dp,
		Normalized:     cfg.Normalize,
	}
	e.mu.Lock()
	info.Dimensions = e.dims
	e.mu.Unlock()
	if info.Dimensions == 0 {
		if _, err := e.Embed(ctx, plugins.InputDocument, []string{probeText}); err != nil {
			return plugins.EmbedderInfo{}, fmt.Errorf(
				"httpembed: dimensions of %s model %q unknown: set option \"dimensions\", or make the server reachable: %w",
				p.name(), cfg.Model, err)
		}
		e.mu.Lock()
		info.Dimensions = e.dims
		e.mu.Unlock()
	}
	return info, nil
}

// Embed returns one vector per text, in order, sending batch_size texts
// per HTTP request.
func (e *Embedder) Embed(ctx context.Context, input plugins.InputType, texts []string) ([][]float32, error) {
	cfg, p, client, err := e.state()
	if err != nil {
		return nil, err
	}
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	qp, dp := cfg.prefixes()
	prefix := dp
	if input == plugins.InputQuery {
		prefix = qp
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += cfg.BatchSize {
		end := min(start+cfg.BatchSize, len(texts))
		batch := make([]string, end-start)
		for i, t := range texts[start:end] {
			batch[i] = prefix + truncateRunes(t, cfg.MaxInputChars)
		}
		vecs, err := p.embed(ctx, client, cfg, batch)
		if err != nil {
			return nil, err
		}
		for i, v := range vecs {
			v, err = finish(v, cfg.Dimensions, cfg.Normalize)
			if err == nil {
				err = e.checkDims(len(v))
			}
			if err != nil {
				return nil, fmt.Errorf("%s: model %q, input %d: %w", p.name(), cfg.Model, start+i, err)
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// checkDims learns the dimensions from the first vector and rejects
// vectors of any other length.
func (e *Embedder) checkDims(n int) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n == 0 {
		return errors.New("server returned an empty vector")
	}
	if e.dims == 0 {
		e.dims = n
		return nil
	}
	if n != e.dims {
		return fmt.Errorf("server returned %d dimensions, want %d", n, e.dims)
	}
	return nil
}
