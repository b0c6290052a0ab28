package httpembed

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/plugins/internal/httpx"
)

// openai speaks POST /embeddings of the OpenAI API.
type openai struct{}

type openaiRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	Dimensions     int      `json:"dimensions,omitempty"`
	EncodingFormat string   `json:"encoding_format"`
}

type openaiResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

func (openai) name() string { return "openai" }

func (openai) embed(ctx context.Context, c *httpx.Client, cfg *Config, texts []string) ([][]float32, error) {
	req := openaiRequest{Model: cfg.Model, Input: texts, EncodingFormat: "float"}
	if cfg.SendDimensions {
		req.Dimensions = cfg.Dimensions
	}
	url := cfg.Endpoint("/embeddings")
	var resp openaiResponse
	if err := c.PostJSON(ctx, url, req, &resp); err != nil {
		return nil, err
	}
	if len(resp.Data) != len(texts) {
		return nil, fmt.Errorf("openai: POST %s: %d embeddings for %d inputs", url, len(resp.Data), len(texts))
	}
	// Replies are usually in order, but the API orders by index.
	out := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(texts) || out[d.Index] != nil {
			return nil, fmt.Errorf("openai: POST %s: bad or repeated index %d in reply", url, d.Index)
		}
		if d.Embedding == nil {
			d.Embedding = []float32{}
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}
