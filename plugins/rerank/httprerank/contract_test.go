package httprerank

import (
	"testing"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/contract"
)

func TestContract(t *testing.T) {
	f := newFake(t)
	for _, opts := range []plugins.Options{
		{"api": "cohere", "model": "rerank-v3.5", "base_url": f.srv.URL + "/v2"},
		{"api": "jina", "model": "jina-reranker-v2-base-multilingual", "base_url": f.srv.URL + "/jina/v1"},
		{"api": "tei", "base_url": f.srv.URL, "batch_size": 3},
		{"api": "llamacpp", "base_url": f.srv.URL + "/v1"},
	} {
		t.Run(opts["api"].(string), func(t *testing.T) {
			r, _ := configured(t, opts)
			contract.TestReranker(t, r)
		})
	}
}
