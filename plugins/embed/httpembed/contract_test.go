package httpembed

import (
	"testing"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/contract"
)

func TestContract(t *testing.T) {
	f := newFake(t, 16)
	for name, opts := range map[string]plugins.Options{
		"ollama":           {"provider": "ollama", "model": "nomic-embed-text", "base_url": f.srv.URL, "prefix": "nomic"},
		"openai":           {"provider": "openai", "model": "text-embedding-3-small", "base_url": f.srv.URL + "/v1"},
		"openai truncated": {"provider": "openai", "model": "m", "base_url": f.srv.URL + "/v1", "dimensions": 8, "send_dimensions": false, "batch_size": 7},
	} {
		t.Run(name, func(t *testing.T) {
			e, _ := configured(t, opts)
			contract.TestEmbedder(t, e)
		})
	}
}
