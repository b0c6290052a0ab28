package httprerank

import (
	"fmt"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/internal/httpx"
	"github.com/ragd/ragd/plugins/internal/options"
)

// Config is the [plugin.options] table of an httprerank plugin.
type Config struct {
	httpx.Options
	API          string `json:"api"`           // "cohere", "jina", "tei" or "llamacpp" (required)
	Model        string `json:"model"`         // required for cohere and jina
	MaxChars     int    `json:"max_chars"`     // per document (default 4000; 0: no limit)
	BatchSize    int    `json:"batch_size"`    // documents per request (default 32 for tei, else 100)
	IncludeTitle bool   `json:"include_title"` // prepend "title > heading" (default true)
}

// DefaultMaxChars is the default max_chars.
const DefaultMaxChars = 4000

var defaultURLs = map[string]string{
	"cohere":   "https://api.cohere.com/v2",
	"jina":     "https://api.jina.ai/v1",
	"tei":      "http://localhost:8080",
	"llamacpp": "http://localhost:8080/v1",
}

func parseConfig(opts plugins.Options) (Config, error) {
	c := Config{Options: httpx.DefaultOptions(""), MaxChars: DefaultMaxChars, IncludeTitle: true}
	if err := options.Decode(opts, &c); err != nil {
		return c, err
	}
	def, ok := defaultURLs[c.API]
	switch {
	case c.API == "":
		return c, fmt.Errorf(`option "api" is required: "cohere", "jina", "tei" or "llamacpp"`)
	case !ok:
		return c, fmt.Errorf(`option "api": unknown API %q (want "cohere", "jina", "tei" or "llamacpp")`, c.API)
	}
	if c.BaseURL == "" {
		c.BaseURL = def
	}
	if c.Model == "" && (c.API == "cohere" || c.API == "jina") {
		return c, fmt.Errorf(`option "model" is required for api %q`, c.API)
	}
	if c.MaxChars < 0 {
		return c, fmt.Errorf(`option "max_chars": %d is negative`, c.MaxChars)
	}
	if c.BatchSize == 0 {
		c.BatchSize = 100
		if c.API == "tei" {
			c.BatchSize = 32
		}
	}
	if c.BatchSize < 1 {
		return c, fmt.Errorf(`option "batch_size": %d is less than 1`, c.BatchSize)
	}
	return c, nil
}
