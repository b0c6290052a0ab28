package daemon

import (
	"testing"

	"github.com/ragd/ragd/daemon/config"
)

func TestEnricherIdentity(t *testing.T) {
	id := func(ix string, opts map[string]any) string {
		cfg := config.Default()
		cfg.Index.EntityExtractor = ix
		cfg.Plugins = []config.Plugin{{Name: "llm", Kind: "extractor", Builtin: "llm-entities", Options: opts}}
		d, err := New(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		d.backends = &backends{} // as Run sets them
		if (d.enrichFunc() == nil) != (ix == "") {
			t.Errorf("entity_extractor %q: enrich hook set = %v", ix, d.enrichFunc() != nil)
		}
		return d.enricher()
	}
	base := id("llm", map[string]any{"model": "a", "timeout": "10s"})
	if id("", map[string]any{"model": "a"}) != "" {
		t.Error("enrichment off has an enricher")
	}
	if got := id("llm", map[string]any{"model": "a", "timeout": "99s", "base_url": "http://other"}); got != base {
		t.Errorf("operational options changed the enricher: %s != %s", got, base)
	}
	if got := id("llm", map[string]any{"model": "b", "timeout": "10s"}); got == base {
		t.Errorf("another model kept the enricher %s", got)
	}
}
