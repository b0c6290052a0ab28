// Package httpx is the JSON-over-HTTP client shared by ragd's HTTP
// backends (embedders, rerankers, the entity extractor): one POST with a
// per-attempt timeout, retried with exponential backoff and jitter on 429,
// 408, 5xx and connection errors, honouring Retry-After. Errors name the
// provider, the URL and the status, with the server's message.
package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"time"
)

// Defaults for a Client's zero fields.
const (
	DefaultMaxRetries = 5
	DefaultTimeout    = 60 * time.Second
	DefaultBaseDelay  = 500 * time.Millisecond
	DefaultMaxDelay   = 30 * time.Second
	// MaxRetryAfter caps how long a Retry-After header may make us wait.
	MaxRetryAfter = 5 * time.Minute
	maxBody       = 64 << 20 // largest response body read
	maxErrBody    = 512      // bytes of an error body quoted in an error
)

// Client posts JSON and decodes JSON replies. Its fields are read-only
// once in use; it is safe for concurrent use.
type Client struct {
	Provider   string        // named in errors: "ollama", "openai", …
	HTTP       *http.Client  // nil: a client without overall timeout
	Header     http.Header   // extra headers (Authorization) on every request
	MaxRetries int           // retries after the first attempt; <0: none, 0: DefaultMaxRetries
	Timeout    time.Duration // per attempt; 0: DefaultTimeout
	BaseDelay  time.Duration // first backoff; 0: DefaultBaseDelay
	MaxDelay   time.Duration // backoff cap (not applied to Retry-After); 0: DefaultMaxDelay
	// Sleep waits d or until ctx ends; nil: a timer. Tests replace it.
	Sleep func(ctx context.Context, d time.Duration) error
}

// StatusError is a non-2xx reply.
type StatusError struct {
	Provider string
	URL      string
	Status   int
	Message  string // the server's error message, or its body, truncated
}

func (e *StatusError) Error() string {
	s := fmt.Sprintf("%s: POST %s: %d %s", e.Provider, e.URL, e.Status, http.StatusText(e.Status))
	if e.Message != "" {
		s += ": " + e.Message
	}
	return s
}

// Retryable reports whether a reply with this status may succeed later.
func Retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusRequestTimeout ||
		status >= 500 && status != http.StatusNotImplemented && status != http.StatusHTTPVersionNotSupported
}

// APIKey returns the value of the environment variable env, or "" when
// env is "" (local servers need no key). A named but unset or empty
// variable is an error that names it.
func APIKey(env string) (string, error) {
	if env == "" {
		return "", nil
	}
	v, ok := os.LookupEnv(env)
	if !ok {
		return "", fmt.Errorf(`option "api_key_env": environment variable %s is not set`, env)
	}
	if strings.TrimSpace(v) == "" {
		return "", fmt.Errorf(`option "api_key_env": environment variable %s is empty`, env)
	}
	return strings.TrimSpace(v), nil
}

// BearerHeader returns the headers for key ("": none).
func BearerHeader(key string) http.Header {
	h := http.Header{}
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
	return h
}

// PostJSON posts body as JSON to url and decodes a 2xx reply into out.
func (c *Client) PostJSON(ctx context.Context, url string, body, out any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("%s: encode request: %w", c.Provider, err)
	}
	retries := c.MaxRetries
	if retries == 0 {
		retries = DefaultMaxRetries
	}
	for attempt := 0; ; attempt++ {
		data, wait, err := c.once(ctx, url, payload)
		if err == nil {
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("%s: POST %s: decode reply: %w (body: %s)", c.Provider, url, err, clip(data))
			}
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: POST %s: %w", c.Provider, url, ctx.Err())
		}
		if wait < 0 || attempt >= retries {
			if attempt > 0 {
				return fmt.Errorf("%w (after %d attempts)", err, attempt+1)
			}
			return err
		}
		if wait == 0 {
			wait = c.backoff(attempt)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return fmt.Errorf("%w (retry in %s would pass the deadline)", err, wait.Round(time.Millisecond))
		}
		if err := c.sleep(ctx, wait); err != nil {
			return fmt.Errorf("%s: POST %s: %w", c.Provider, url, err)
		}
	}
}

// once makes one attempt. wait is -1 for a permanent error, 0 for a
// retryable one without Retry-After, or the delay the server asked for.
func (c *Client) once(ctx context.Context, url string, payload []byte) ([]byte, time.Duration, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return nil, -1, fmt.Errorf("%s: %w", c.Provider, err)
	}
	for k, vs := range c.Header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		// Connection refused, reset, DNS, per-attempt timeout: all retryable.
		if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
			return nil, 0, fmt.Errorf("%s: POST %s: no reply within %s (timeout)", c.Provider, url, timeout)
		}
		return nil, 0, fmt.Errorf("%s: POST %s: %w", c.Provider, url, unwrapURL(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: POST %s: read reply: %w", c.Provider, url, err)
	}
	if resp.StatusCode/100 == 2 {
		return data, 0, nil
	}
	serr := &StatusError{Provider: c.Provider, URL: url, Status: resp.StatusCode, Message: message(data)}
	if !Retryable(resp.StatusCode) {
		return nil, -1, serr
	}
	return nil, retryAfter(resp.Header.Get("Retry-After")), serr
}

func unwrapURL(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) && ue.Unwrap() != nil {
		return ue.Unwrap()
	}
	return err
}

// backoff is exponential with "equal jitter": half fixed, half random.
func (c *Client) backoff(attempt int) time.Duration {
	base, maxd := c.BaseDelay, c.MaxDelay
	if base <= 0 {
		base = DefaultBaseDelay
	}
	if maxd <= 0 {
		maxd = DefaultMaxDelay
	}
	d := base << min(attempt, 20)
	if d > maxd || d <= 0 {
		d = maxd
	}
	return d/2 + rand.N(d/2+1)
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
