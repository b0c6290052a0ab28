package httprerank

import (
	"context"

	"github.com/ragd/ragd/plugins/internal/httpx"
)

// cohereRequest is the Cohere/Jina/llama.cpp body.
type cohereRequest struct {
	Model           string   `json:"model,omitempty"`
	Query           string   `json:"query"`
	Documents       []string `json:"documents"`
	TopN            int      `json:"top_n"`
	ReturnDocuments *bool    `json:"return_documents,omitempty"` // jina only
}

type cohereResponse struct {
	Results []struct {
		Index          int     `json:"index"`
		RelevanceScore float64 `json:"relevance_score"`
	} `json:"results"`
}

// teiRequest is the text-embeddings-inference body.
type teiRequest struct {
	Query    string   `json:"query"`
	Texts    []string `json:"texts"`
	Truncate bool     `json:"truncate"`
}

type teiResponse []struct {
	Index int     `json:"index"`
	Score float64 `json:"score"`
}

// call scores one batch of documents and returns the scores in order.
func call(ctx context.Context, c *httpx.Client, cfg *Config, query string, docs []string) ([]float64, error) {
	url := cfg.Endpoint("/rerank")
	var res []result
	if cfg.API == "tei" {
		var resp teiResponse
		if err := c.PostJSON(ctx, url, teiRequest{Query: query, Texts: docs, Truncate: true}, &resp); err != nil {
			return nil, err
		}
		for _, r := range resp {
			res = append(res, result{r.Index, r.Score})
		}
	} else {
		req := cohereRequest{Model: cfg.Model, Query: query, Documents: docs, TopN: len(docs)}
		if cfg.API == "jina" {
			f := false
			req.ReturnDocuments = &f
		}
		var resp cohereResponse
		if err := c.PostJSON(ctx, url, req, &resp); err != nil {
			return nil, err
		}
		for _, r := range resp.Results {
			res = append(res, result{r.Index, r.RelevanceScore})
		}
	}
	return scatter(cfg.API, url, len(docs), res)
}
