package httpembed

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/plugins/internal/httpx"
)

// ollama speaks POST /api/embed.
type ollama struct{}

type ollamaRequest struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Truncate   bool     `json:"truncate"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type ollamaResponse struct {
	Embeddings [][]float32 `json:"embeddings"`
}

func (ollama) name() string { return "ollama" }

func (ollama) embed(ctx context.Context, c *httpx.Client, cfg *Config, texts []string) ([][]float32, error) {
	req := ollamaRequest{Model: cfg.Model, Input: texts, Truncate: true}
	if cfg.SendDimensions {
		req.Dimensions = cfg.Dimensions
	}
	url := cfg.Endpoint("/api/embed")
	var resp ollamaResponse
	if err := c.PostJSON(ctx, url, req, &resp); err != nil {
		return nil, err
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, fmt.Errorf("ollama: POST %s: %d embeddings for %d inputs", url, len(resp.Embeddings), len(texts))
	}
	return resp.Embeddings, nil
}
