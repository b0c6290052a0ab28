package config

import "testing"

const llmPlugin = "\n[[plugin]]\nname = 'llm'\nkind = 'extractor'\nbuiltin = 'llm-entities'\n" +
	"[[plugin]]\nname = 'emb'\nkind = 'embedder'\nbuiltin = 'ollama'\n"

func TestEntityExtractor(t *testing.T) {
	dir := fixture(t)
	cfg, err := Parse("ragd.toml", []byte("[index]\nentity_extractor = 'llm'\n"+llmPlugin), dir)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Index.EntityExtractor != "llm" {
		t.Errorf("entity_extractor = %q", cfg.Index.EntityExtractor)
	}
	if cfg, err := Parse("ragd.toml", []byte(llmPlugin), dir); err != nil || cfg.Index.EntityExtractor != "" {
		t.Errorf("default = %q, %v; want off", cfg.Index.EntityExtractor, err)
	}
	tests := []struct {
		name, toml string
		want       []want
	}{
		{"no such plugin", "[index]\nentity_extractor = 'nope'\n" + llmPlugin,
			[]want{{2, "index.entity_extractor", `no [[plugin]] is named "nope"`}}},
		{"not an extractor", "[index]\nworkers = 2\nentity_extractor = 'emb'\n" + llmPlugin,
			[]want{{3, "index.entity_extractor", `plugin "emb" is a embedder, not an extractor`}}},
		{"not a string", "[index]\nentity_extractor = true\n",
			[]want{{2, "index.entity_extractor", "expected a string, got boolean true"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("ragd.toml", []byte(tt.toml), dir)
			checkErrors(t, err, tt.want)
		})
	}
}
