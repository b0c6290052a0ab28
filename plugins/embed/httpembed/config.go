package httpembed

import (
	"fmt"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/internal/httpx"
	"github.com/ragd/ragd/plugins/internal/options"
)

// Option defaults.
const (
	DefaultBatchSize  = 64
	defaultOllamaURL  = "http://localhost:11434"
	defaultOpenAIURL  = "https://api.openai.com/v1"
	maxBatchSizeLimit = 4096
)

// Config is the [plugin.options] table of an httpembed plugin.
type Config struct {
	httpx.Options
	Provider       string  `json:"provider"`        // "ollama" or "openai" (required)
	Model          string  `json:"model"`           // required
	Dimensions     int     `json:"dimensions"`      // 0: the model's own
	SendDimensions bool    `json:"send_dimensions"` // pass dimensions to the server (default true)
	Prefix         string  `json:"prefix"`          // "none" (default), "nomic" or "e5"
	QueryPrefix    *string `json:"query_prefix"`    // overrides prefix's query prefix
	DocumentPrefix *string `json:"document_prefix"` // overrides prefix's document prefix
	Normalize      bool    `json:"normalize"`       // L2-normalise vectors (default true)
	BatchSize      int     `json:"batch_size"`      // texts per HTTP request (default 64)
	MaxInputChars  int     `json:"max_input_chars"` // truncate longer texts (0: no limit)
}

// prefixStyles are the named prefix conventions: query, document.
var prefixStyles = map[string][2]string{
	"none":  {"", ""},
	"nomic": {"search_query: ", "search_document: "},
	"e5":    {"query: ", "passage: "},
}

// parseConfig decodes and checks opts.
func parseConfig(opts plugins.Options) (Config, error) {
	c := Config{
		Options:        httpx.DefaultOptions(""),
		SendDimensions: true,
		Prefix:         "none",
		Normalize:      true,
		BatchSize:      DefaultBatchSize,
	}
	if err := options.Decode(opts, &c); err != nil {
		return c, err
	}
	switch c.Provider {
	case "ollama":
		if c.BaseURL == "" {
			c.BaseURL = defaultOllamaURL
		}
	case "openai":
		if c.BaseURL == "" {
			c.BaseURL = defaultOpenAIURL
		}
	case "":
		return c, fmt.Errorf(`option "provider" is required: "ollama" or "openai"`)
	default:
		return c, fmt.Errorf(`option "provider": unknown provider %q (want "ollama" or "openai")`, c.Provider)
	}
	if c.Model == "" {
		return c, fmt.Errorf(`option "model" is required`)
	}
	if c.Dimensions < 0 {
		return c, fmt.Errorf(`option "dimensions": %d is negative`, c.Dimensions)
	}
	if _, ok := prefixStyles[c.Prefix]; !ok {
		return c, fmt.Errorf(`option "prefix": unknown style %q (want "none", "nomic" or "e5")`, c.Prefix)
	}
	if c.BatchSize < 1 || c.BatchSize > maxBatchSizeLimit {
		return c, fmt.Errorf(`option "batch_size": %d is not between 1 and %d`, c.BatchSize, maxBatchSizeLimit)
	}
	if c.MaxInputChars < 0 {
		return c, fmt.Errorf(`option "max_input_chars": %d is negative`, c.MaxInputChars)
	}
	return c, nil
}

// prefixes returns the query and document prefixes.
func (c Config) prefixes() (query, doc string) {
	p := prefixStyles[c.Prefix]
	query, doc = p[0], p[1]
	if c.QueryPrefix != nil {
		query = *c.QueryPrefix
	}
	if c.DocumentPrefix != nil {
		doc = *c.DocumentPrefix
	}
	return query, doc
}
