package httpembed

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/plugins"
)

func TestRetryAfter429(t *testing.T) {
	f := newFake(t, 4)
	f.fail = func(w http.ResponseWriter, n int) bool {
		if n == 0 {
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"message":"Rate limit reached","type":"requests"}}`))
			return true
		}
		return false
	}
	e, s := configured(t, plugins.Options{"provider": "openai", "model": "m", "base_url": f.srv.URL + "/v1"})
	out, err := e.Embed(ctx, plugins.InputQuery, []string{"q"})
	if err != nil || len(out) != 1 {
		t.Fatalf("Embed: %v", err)
	}
	if f.requests() != 2 || len(s.d) != 1 || s.d[0] != 7*time.Second {
		t.Fatalf("%d requests, sleeps %v; want 2 and [7s]", f.requests(), s.d)
	}
}

func TestRetry500ThenSuccess(t *testing.T) {
	f := newFake(t, 4)
	f.fail = func(w http.ResponseWriter, n int) bool {
		if n < 2 {
			http.Error(w, `{"error":"model runner crashed"}`, http.StatusInternalServerError)
			return true
		}
		return false
	}
	e, s := configured(t, plugins.Options{"provider": "ollama", "model": "m", "base_url": f.srv.URL})
	if _, err := e.Embed(ctx, plugins.InputDocument, []string{"d"}); err != nil {
		t.Fatal(err)
	}
	if f.requests() != 3 || len(s.d) != 2 || s.d[1] < s.d[0]/2 {
		t.Fatalf("%d requests, sleeps %v", f.requests(), s.d)
	}
	// Exponential with equal jitter: attempt k waits in [b·2^k/2, b·2^k].
	if s.d[0] < 250*time.Millisecond || s.d[0] > 500*time.Millisecond ||
		s.d[1] < 500*time.Millisecond || s.d[1] > time.Second {
		t.Errorf("backoff %v outside the jitter windows", s.d)
	}
}

func TestRetriesExhausted(t *testing.T) {
	f := newFake(t, 4)
	f.fail = func(w http.ResponseWriter, n int) bool {
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"error":"server busy"}`))
		return true
	}
	e, _ := configured(t, plugins.Options{"provider": "ollama", "model": "m",
		"base_url": f.srv.URL, "max_retries": int64(2)})
	_, err := e.Embed(ctx, plugins.InputDocument, []string{"d"})
	if err == nil || f.requests() != 3 || !strings.Contains(err.Error(), "server busy") ||
		!strings.Contains(err.Error(), "3 attempts") {
		t.Fatalf("%d requests, err %v", f.requests(), err)
	}
}

func TestConnectionErrorRetried(t *testing.T) {
	f := newFake(t, 4)
	f.fail = func(w http.ResponseWriter, n int) bool {
		if n == 0 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return true
		}
		return false
	}
	e, s := configured(t, plugins.Options{"provider": "ollama", "model": "m", "base_url": f.srv.URL})
	if _, err := e.Embed(ctx, plugins.InputDocument, []string{"d"}); err != nil {
		t.Fatal(err)
	}
	if f.requests() != 2 || len(s.d) != 1 {
		t.Fatalf("%d requests, sleeps %v", f.requests(), s.d)
	}
}

func TestPermanent400(t *testing.T) {
	f := newFake(t, 4)
	f.fail = func(w http.ResponseWriter, n int) bool {
		w.WriteHeader(http.StatusBadRequest)
		w.Write([]byte(`{"error":{"message":"This model does not support specifying dimensions.","type":"invalid_request_error"}}`))
		return true
	}
	e, s := configured(t, plugins.Options{"provider": "openai", "model": "ada", "base_url": f.srv.URL + "/v1"})
	_, err := e.Embed(ctx, plugins.InputDocument, []string{"d"})
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{"openai", f.srv.URL + "/v1/embeddings", "400", "does not support specifying dimensions"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q lacks %q", msg, want)
		}
	}
	if f.requests() != 1 || len(s.d) != 0 {
		t.Errorf("permanent error retried: %d requests", f.requests())
	}
}

func TestTimeoutOption(t *testing.T) {
	f := newFake(t, 4)
	block := make(chan struct{})
	defer close(block)
	f.fail = func(w http.ResponseWriter, n int) bool {
		if n == 0 {
			select {
			case <-block:
			case <-time.After(5 * time.Second):
			}
			return true
		}
		return false
	}
	e, s := configured(t, plugins.Options{"provider": "ollama", "model": "m", "base_url": f.srv.URL, "timeout": "50ms"})
	if _, err := e.Embed(ctx, plugins.InputDocument, []string{"d"}); err != nil {
		t.Fatal(err)
	}
	if len(s.d) != 1 {
		t.Errorf("timed-out attempt not retried: sleeps %v", s.d)
	}
}
