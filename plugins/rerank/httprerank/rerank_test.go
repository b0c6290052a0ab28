package httprerank

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/ragd/ragd/plugins"
)

var ctx = context.Background()

func candidates(n int) []plugins.Candidate {
	c := make([]plugins.Candidate, n)
	for i := range c {
		c[i] = plugins.Candidate{ID: fmt.Sprint(i), Path: fmt.Sprintf("n%d.md", i),
			Text: fmt.Sprintf("note %d about %s", i, []string{"badger storage", "zebra stripes", "go plugins"}[i%3])}
	}
	return c
}

func TestAPIs(t *testing.T) {
	f := newFake(t)
	t.Setenv("RERANK_KEY", "k-123")
	for _, tc := range []struct {
		api, path, model string
	}{
		{"cohere", "/v2", "rerank-v3.5"},
		{"jina", "/jina/v1", "jina-reranker-v2-base-multilingual"},
		{"tei", "", ""},
		{"llamacpp", "/v1", ""},
	} {
		t.Run(tc.api, func(t *testing.T) {
			r, _ := configured(t, plugins.Options{"api": tc.api, "base_url": f.srv.URL + tc.path,
				"model": tc.model, "api_key_env": "RERANK_KEY", "include_title": false})
			cands := candidates(7)
			before := f.requests()
			got, err := r.Rerank(ctx, "zebra stripes", cands)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range cands {
				if want := relevance("zebra stripes", c.Text); math.Abs(got[i]-want) > 1e-12 {
					t.Errorf("score %d = %v, want %v", i, got[i], want)
				}
			}
			if f.requests() != before+1 {
				t.Errorf("%d requests for 7 candidates", f.requests()-before)
			}
			f.mu.Lock()
			auth, body := f.auth[before], f.bodies[before]
			f.mu.Unlock()
			if auth != "Bearer k-123" {
				t.Errorf("Authorization %q", auth)
			}
			if tc.api != "tei" && body["top_n"] != float64(7) {
				t.Errorf("top_n %v, want every document", body["top_n"])
			}
			info, _ := r.RerankerInfo(ctx)
			if info.Name != tc.api || info.Model != tc.model {
				t.Errorf("info %+v", info)
			}
		})
	}
}

func TestTEIBatches(t *testing.T) {
	f := newFake(t)
	r, _ := configured(t, plugins.Options{"api": "tei", "base_url": f.srv.URL})
	cands := candidates(40)
	got, err := r.Rerank(ctx, "go plugins", cands)
	if err != nil {
		t.Fatal(err)
	}
	if f.requests() != 2 || len(got) != 40 {
		t.Fatalf("%d requests, %d scores", f.requests(), len(got))
	}
	if got[2] <= got[0] || got[39] >= got[38] {
		t.Errorf("scores not in input order: %v", got)
	}
	// batch_size above the server's limit: TEI's 413 is permanent.
	r, s := configured(t, plugins.Options{"api": "tei", "base_url": f.srv.URL, "batch_size": 64})
	_, err = r.Rerank(ctx, "go plugins", cands)
	if err == nil || !strings.Contains(err.Error(), "413") || !strings.Contains(err.Error(), "maximum allowed batch size 32") {
		t.Errorf("want the 413 message, got %v", err)
	}
	if len(s.d) != 0 {
		t.Errorf("413 retried")
	}
}

func TestMissingIndexIsError(t *testing.T) {
	f := newFake(t)
	f.drop = 2
	for _, api := range []string{"tei", "llamacpp"} {
		r, _ := configured(t, plugins.Options{"api": api, "base_url": f.srv.URL + map[string]string{"tei": "", "llamacpp": "/v1"}[api]})
		_, err := r.Rerank(ctx, "q", candidates(4))
		if err == nil || !strings.Contains(err.Error(), "no score for document 2 of 4") {
			t.Errorf("%s: got %v", api, err)
		}
	}
}

func TestRetries(t *testing.T) {
	f := newFake(t)
	f.fail = func(w http.ResponseWriter, n int) bool {
		switch n {
		case 0:
			w.Header().Set("Retry-After", "3")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"message":"You are using a Trial key, which is limited to 10 API calls / minute."}`))
			return true
		case 1:
			w.WriteHeader(http.StatusBadGateway)
			return true
		}
		return false
	}
	r, s := configured(t, plugins.Options{"api": "cohere", "model": "m", "base_url": f.srv.URL + "/v2"})
	if _, err := r.Rerank(ctx, "q", candidates(3)); err != nil {
		t.Fatal(err)
	}
	if f.requests() != 3 || len(s.d) != 2 || s.d[0].Seconds() != 3 {
		t.Errorf("%d requests, sleeps %v", f.requests(), s.d)
	}
}

func TestPermanentError(t *testing.T) {
	f := newFake(t)
	r, s := configured(t, plugins.Options{"api": "cohere", "model": "m", "base_url": f.srv.URL + "/v2"})
	r.cfg.Model = "" // the fake answers 400 without a model
	_, err := r.Rerank(ctx, "q", candidates(2))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"cohere", f.srv.URL + "/v2/rerank", "400", "model must be specified"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if len(s.d) != 0 {
		t.Error("400 retried")
	}
}

func TestDocuments(t *testing.T) {
	f := newFake(t)
	r, _ := configured(t, plugins.Options{"api": "jina", "model": "m", "base_url": f.srv.URL + "/jina/v1", "max_chars": 20})
	cands := []plugins.Candidate{
		{Title: "Zebras", Heading: "Habitat > Plains", Text: "They live on grassland."},
		{Text: "ünïcödé text that is long"},
	}
	if _, err := r.Rerank(ctx, "q", cands); err != nil {
		t.Fatal(err)
	}
	docs := f.bodies[0]["documents"].([]any)
	if docs[0] != "Zebras > Habitat > P" || docs[1] != "ünïcödé text that is" {
		t.Errorf("documents %q", docs)
	}
	if f.bodies[0]["return_documents"] != false {
		t.Errorf("jina return_documents %v", f.bodies[0]["return_documents"])
	}
	got, err := r.Rerank(ctx, "q", nil)
	if err != nil || len(got) != 0 || f.requests() != 1 {
		t.Errorf("empty list: %v %v, %d requests", got, err, f.requests())
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		opts plugins.Options
		want string
	}{
		{plugins.Options{"api": "tei", "top_n": 3}, `unknown option "top_n"`},
		{plugins.Options{}, `"api" is required`},
		{plugins.Options{"api": "voyage"}, `unknown API "voyage"`},
		{plugins.Options{"api": "cohere"}, `"model" is required for api "cohere"`},
		{plugins.Options{"api": "tei", "api_key_env": "RAGD_TEST_UNSET_KEY"}, "RAGD_TEST_UNSET_KEY is not set"},
		{plugins.Options{"api": "tei", "max_retries": -1}, `option "max_retries": -1 is negative`},
	} {
		err := New().Configure(ctx, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.opts, err, tc.want)
		}
	}
	if _, err := New().Rerank(ctx, "q", candidates(1)); err == nil {
		t.Error("Rerank before Configure: no error")
	}
}
