package llmentities

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/internal/httpx"
	"github.com/ragd/ragd/plugins/internal/options"
)

// Option defaults.
const (
	DefaultBaseURL       = "http://localhost:11434/v1"
	DefaultMaxChars      = 4000
	DefaultConcurrency   = 2
	DefaultMinConfidence = 0.5
	DefaultCacheEntries  = 4096
	DefaultTimeout       = 120 * time.Second
)

// Config is the [plugin.options] table of the llmentities plugin.
type Config struct {
	httpx.Options
	Model         string   `json:"model"`          // required
	MaxChars      int      `json:"max_chars"`      // per chunk (default 4000)
	Temperature   float64  `json:"temperature"`    // default 0
	Concurrency   int      `json:"concurrency"`    // requests in flight per note (default 2)
	MinConfidence float64  `json:"min_confidence"` // drop below this (default 0.5)
	CacheDir      string   `json:"cache_dir"`      // on-disk cache ("": memory only)
	CacheEntries  int      `json:"cache_entries"`  // in-memory LRU size (default 4096)
	Extensions    []string `json:"extensions"`     // default [".md"]
}

func parseConfig(opts plugins.Options) (Config, error) {
	c := Config{
		Options:       httpx.DefaultOptions(DefaultBaseURL),
		MaxChars:      DefaultMaxChars,
		Concurrency:   DefaultConcurrency,
		MinConfidence: DefaultMinConfidence,
		CacheEntries:  DefaultCacheEntries,
		Extensions:    []string{".md"},
	}
	c.Timeout = options.Duration(DefaultTimeout)
	if err := options.Decode(opts, &c); err != nil {
		return c, err
	}
	switch {
	case c.Model == "":
		return c, fmt.Errorf(`option "model" is required`)
	case c.MaxChars < 200:
		return c, fmt.Errorf(`option "max_chars": %d is less than 200`, c.MaxChars)
	case c.Temperature < 0 || c.Temperature > 2:
		return c, fmt.Errorf(`option "temperature": %v is not between 0 and 2`, c.Temperature)
	case c.Concurrency < 1:
		return c, fmt.Errorf(`option "concurrency": %d is less than 1`, c.Concurrency)
	case c.MinConfidence < 0 || c.MinConfidence > 1:
		return c, fmt.Errorf(`option "min_confidence": %v is not between 0 and 1`, c.MinConfidence)
	case c.CacheEntries < 0:
		return c, fmt.Errorf(`option "cache_entries": %d is negative`, c.CacheEntries)
	case len(c.Extensions) == 0:
		return c, fmt.Errorf(`option "extensions": empty list`)
	}
	for i, e := range c.Extensions {
		e = strings.ToLower(strings.TrimSpace(e))
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		if len(e) < 2 || strings.ContainsAny(e, `/\ `) {
			return c, fmt.Errorf(`option "extensions": %q is not a file extension`, c.Extensions[i])
		}
		c.Extensions[i] = e
	}
	if c.CacheDir != "" {
		dir, err := expandDir(c.CacheDir)
		if err != nil {
			return c, fmt.Errorf(`option "cache_dir": %w`, err)
		}
		c.CacheDir = dir
	}
	return c, nil
}

// expandDir resolves a leading ~/ and requires an absolute path (the
// plugin's working directory is not the config file's).
func expandDir(d string) (string, error) {
	if d == "~" || strings.HasPrefix(d, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		d = filepath.Join(home, d[1:])
	}
	if !filepath.IsAbs(d) {
		return "", fmt.Errorf("%q is not an absolute path", d)
	}
	return filepath.Clean(d), nil
}
