package httpx

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/ragd/ragd/plugins/internal/options"
)

// Options are the connection options every HTTP backend accepts; embed
// it in a backend's option struct and call Client after decoding.
type Options struct {
	BaseURL    string           `json:"base_url"`    // server root, e.g. "http://localhost:11434"
	APIKeyEnv  string           `json:"api_key_env"` // name of the variable holding the key ("": no key)
	Timeout    options.Duration `json:"timeout"`     // per HTTP attempt (default 60s)
	MaxRetries int              `json:"max_retries"` // retries after the first attempt (default 5)
}

// DefaultOptions returns Options with the defaults and base URL base.
func DefaultOptions(base string) Options {
	return Options{BaseURL: base, Timeout: options.Duration(DefaultTimeout), MaxRetries: DefaultMaxRetries}
}

// Client checks o and returns a client for provider.
func (o Options) Client(provider string) (*Client, error) {
	u, err := url.Parse(o.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf(`option "base_url": %q is not an http:// or https:// URL`, o.BaseURL)
	}
	if o.MaxRetries < 0 {
		return nil, fmt.Errorf(`option "max_retries": %d is negative`, o.MaxRetries)
	}
	if o.Timeout <= 0 {
		return nil, errors.New(`option "timeout": must be more than 0`)
	}
	key, err := APIKey(o.APIKeyEnv)
	if err != nil {
		return nil, err
	}
	retries := o.MaxRetries
	if retries == 0 {
		retries = -1
	}
	return &Client{
		Provider:   provider,
		HTTP:       &http.Client{},
		Header:     BearerHeader(key),
		MaxRetries: retries,
		Timeout:    time.Duration(o.Timeout),
	}, nil
}

// Endpoint joins the base URL and an API path ("/api/embed").
func (o Options) Endpoint(path string) string {
	return strings.TrimRight(o.BaseURL, "/") + path
}
