package llmentities

import (
	"testing"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/contract"
)

func TestContract(t *testing.T) {
	f := newLLM(t)
	e, _ := configured(t, f, plugins.Options{"cache_dir": t.TempDir(), "max_chars": 200})
	contract.TestExtractor(t, e, contract.Sample{
		Path: "history.md", Data: []byte(note),
		WantContains: []string{"Ada Lovelace"}, WantLines: 10,
	})
	if f.requests() != 3 {
		t.Errorf("%d requests: the cache should answer all but the first extraction", f.requests())
	}
}
