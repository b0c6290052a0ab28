package httpx

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestRetryAfter(t *testing.T) {
	for h, want := range map[string]time.Duration{
		"":                              0,
		"3":                             3 * time.Second,
		"0.5":                           500 * time.Millisecond,
		"-1":                            0,
		"bogus":                         0,
		"100000":                        MaxRetryAfter,
		"Wed, 21 Oct 2015 07:28:00 GMT": 0, // in the past
	} {
		if got := retryAfter(h); got != want {
			t.Errorf("retryAfter(%q) = %v, want %v", h, got, want)
		}
	}
	future := time.Now().Add(10 * time.Second).UTC().Format(http.TimeFormat)
	if got := retryAfter(future); got < 8*time.Second || got > 10*time.Second {
		t.Errorf("retryAfter(date) = %v", got)
	}
}

func TestMessage(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":"model \"x\" not found, try pulling it first"}`:       `model "x" not found, try pulling it first`,
		`{"error":{"message":"Incorrect API key provided","type":"x"}}`: "Incorrect API key provided",
		`{"message":"invalid request: model must be specified"}`:        "invalid request: model must be specified",
		`{"detail":"Not authenticated"}`:                                "Not authenticated",
		`{"detail":[{"loc":["body"],"msg":"field required"}]}`:          `[{"loc":["body"],"msg":"field required"}]`,
		"upstream\n  timed out":                                         "upstream timed out",
		strings.Repeat("é", 400):                                        strings.Repeat("é", 256) + "…",
	} {
		if got := message([]byte(body)); got != want {
			t.Errorf("message(%.40q) = %.60q, want %.60q", body, got, want)
		}
	}
}

func TestPostJSONDeadline(t *testing.T) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Retry-After", "60")
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	c := &Client{Provider: "p"}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var out any
	err := c.PostJSON(ctx, srv.URL, map[string]int{}, &out)
	var se *StatusError
	if !errors.As(err, &se) || se.Status != 503 || !strings.Contains(err.Error(), "would pass the deadline") || n.Load() != 1 {
		t.Errorf("got %v after %d requests", err, n.Load())
	}
}

func TestRetryable(t *testing.T) {
	for code, want := range map[int]bool{400: false, 401: false, 404: false, 408: true, 413: false,
		422: false, 429: true, 500: true, 501: false, 502: true, 503: true, 504: true} {
		if Retryable(code) != want {
			t.Errorf("Retryable(%d) = %v", code, !want)
		}
	}
}
