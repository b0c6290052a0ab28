package httpembed

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ragd/ragd/plugins"
)

var ctx = context.Background()

func texts(n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("text %d", i)
	}
	return s
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func sameDirection(t *testing.T, got, raw []float32) {
	t.Helper()
	want := append([]float32(nil), raw...)
	normalize(want)
	if len(got) != len(want) {
		t.Fatalf("len %d, want %d", len(got), len(want))
	}
	for i := range got {
		if math.Abs(float64(got[i]-want[i])) > 1e-6 {
			t.Fatalf("component %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestBatching(t *testing.T) {
	for _, tc := range []struct {
		provider, path string
	}{{"ollama", ""}, {"openai", "/v1"}} {
		t.Run(tc.provider, func(t *testing.T) {
			f := newFake(t, 8)
			e, _ := configured(t, plugins.Options{
				"provider": tc.provider, "model": "m", "base_url": f.srv.URL + tc.path})
			in := texts(64)
			out, err := e.Embed(ctx, plugins.InputDocument, in)
			if err != nil {
				t.Fatal(err)
			}
			if f.requests() != 1 || len(f.inputs[0]) != 64 {
				t.Fatalf("64 inputs took %d requests", f.requests())
			}
			for i, v := range out {
				sameDirection(t, v, vector(in[i], 8))
			}
			in = texts(130)
			out, err = e.Embed(ctx, plugins.InputDocument, in)
			if err != nil {
				t.Fatal(err)
			}
			if f.requests() != 4 || len(f.inputs[3]) != 2 || len(out) != 130 {
				t.Fatalf("130 inputs: %d requests in all, last of %d", f.requests(), len(f.inputs[3]))
			}
			sameDirection(t, out[129], vector(in[129], 8))
			if f.bodies[0]["model"] != "m" {
				t.Errorf("model not sent: %v", f.bodies[0])
			}
		})
	}
}

func TestRequestShapes(t *testing.T) {
	f := newFake(t, 8)
	t.Setenv("TEST_EMBED_KEY", "sk-test")
	e, _ := configured(t, plugins.Options{"provider": "ollama", "model": "nomic-embed-text",
		"base_url": f.srv.URL, "dimensions": float64(4), "api_key_env": "TEST_EMBED_KEY"})
	if _, err := e.Embed(ctx, plugins.InputDocument, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	b := f.bodies[0]
	if b["truncate"] != true || b["dimensions"] != float64(4) || f.auth[0] != "Bearer sk-test" {
		t.Errorf("ollama request %v, auth %q", b, f.auth[0])
	}
	e, _ = configured(t, plugins.Options{"provider": "openai", "model": "text-embedding-3-small",
		"base_url": f.srv.URL + "/v1/"})
	if _, err := e.Embed(ctx, plugins.InputDocument, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	b = f.bodies[1]
	if _, has := b["dimensions"]; has || b["encoding_format"] != "float" || f.auth[1] != "" {
		t.Errorf("openai request %v, auth %q", b, f.auth[1])
	}
}

func TestPrefixes(t *testing.T) {
	f := newFake(t, 4)
	for _, tc := range []struct {
		opts       plugins.Options
		query, doc string
	}{
		{plugins.Options{}, "", ""},
		{plugins.Options{"prefix": "nomic"}, "search_query: ", "search_document: "},
		{plugins.Options{"prefix": "e5"}, "query: ", "passage: "},
		{plugins.Options{"prefix": "e5", "query_prefix": "Q: "}, "Q: ", "passage: "},
		{plugins.Options{"query_prefix": "Represent this question: ", "document_prefix": ""}, "Represent this question: ", ""},
	} {
		tc.opts["provider"], tc.opts["model"], tc.opts["base_url"] = "ollama", "m", f.srv.URL
		e, _ := configured(t, tc.opts)
		q, err := e.Embed(ctx, plugins.InputQuery, []string{"what", "why"})
		if err != nil {
			t.Fatal(err)
		}
		d, err := e.Embed(ctx, plugins.InputDocument, []string{"body"})
		if err != nil {
			t.Fatal(err)
		}
		n := len(f.inputs)
		if got := f.inputs[n-2]; got[0] != tc.query+"what" || got[1] != tc.query+"why" {
			t.Errorf("%v: query inputs %q", tc.opts, got)
		}
		if got := f.inputs[n-1]; got[0] != tc.doc+"body" {
			t.Errorf("%v: document inputs %q", tc.opts, got)
		}
		sameDirection(t, q[0], vector(tc.query+"what", 4))
		sameDirection(t, d[0], vector(tc.doc+"body", 4))
		info, err := e.EmbedderInfo(ctx)
		if err != nil || info.QueryPrefix != tc.query || info.DocumentPrefix != tc.doc {
			t.Errorf("%v: info %+v, %v", tc.opts, info, err)
		}
	}
}

func TestMatryoshka(t *testing.T) {
	f := newFake(t, 8)
	e, _ := configured(t, plugins.Options{"provider": "openai", "model": "m", "base_url": f.srv.URL + "/v1",
		"dimensions": 3, "send_dimensions": false})
	out, err := e.Embed(ctx, plugins.InputDocument, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if _, sent := f.bodies[0]["dimensions"]; sent {
		t.Error("dimensions sent with send_dimensions = false")
	}
	sameDirection(t, out[0], vector("x", 8)[:3])
	if n := norm(out[0]); math.Abs(n-1) > 1e-6 {
		t.Errorf("norm %v after truncation", n)
	}
	// normalize = false: truncated, not rescaled.
	e, _ = configured(t, plugins.Options{"provider": "openai", "model": "m", "base_url": f.srv.URL + "/v1",
		"dimensions": 3, "send_dimensions": false, "normalize": false})
	out, err = e.Embed(ctx, plugins.InputDocument, []string{"x"})
	if err != nil {
		t.Fatal(err)
	}
	if raw := vector("x", 8); out[0][0] != raw[0] || out[0][2] != raw[2] || len(out[0]) != 3 {
		t.Errorf("raw truncation: %v vs %v", out[0], raw)
	}
	info, _ := e.EmbedderInfo(ctx)
	if info.Normalized || info.Dimensions != 3 {
		t.Errorf("info %+v", info)
	}
	// More dimensions than the model has: an error.
	e, _ = configured(t, plugins.Options{"provider": "ollama", "model": "m", "base_url": f.srv.URL, "dimensions": 16})
	if _, err := e.Embed(ctx, plugins.InputDocument, []string{"x"}); err == nil ||
		!strings.Contains(err.Error(), "fewer than the configured 16") {
		t.Errorf("want a dimensions error, got %v", err)
	}
}

func TestMaxInputChars(t *testing.T) {
	f := newFake(t, 4)
	e, _ := configured(t, plugins.Options{"provider": "ollama", "model": "m", "base_url": f.srv.URL,
		"max_input_chars": 3, "prefix": "e5"})
	if _, err := e.Embed(ctx, plugins.InputDocument, []string{"héllo", "ab"}); err != nil {
		t.Fatal(err)
	}
	if got := f.inputs[0]; got[0] != "passage: hél" || got[1] != "passage: ab" {
		t.Errorf("inputs %q", got)
	}
}

func TestInfoWithServerDown(t *testing.T) {
	f := newFake(t, 5)
	url := f.srv.URL
	f.srv.Close()
	e, _ := configured(t, plugins.Options{"provider": "ollama", "model": "m", "base_url": url, "max_retries": 0})
	if _, err := e.EmbedderInfo(ctx); err == nil || !strings.Contains(err.Error(), `set option "dimensions"`) {
		t.Errorf("want an error naming the dimensions option, got %v", err)
	}
	e, _ = configured(t, plugins.Options{"provider": "ollama", "model": "m", "base_url": url, "dimensions": 5})
	info, err := e.EmbedderInfo(ctx)
	if err != nil || info.Dimensions != 5 || info.Name != "ollama" || info.Model != "m" || !info.Normalized {
		t.Errorf("info %+v, %v", info, err)
	}
}

func TestInfoProbesOnce(t *testing.T) {
	f := newFake(t, 6)
	e, _ := configured(t, plugins.Options{"provider": "openai", "model": "m", "base_url": f.srv.URL + "/v1"})
	for range 2 {
		info, err := e.EmbedderInfo(ctx)
		if err != nil || info.Dimensions != 6 || info.Name != "openai" {
			t.Fatalf("info %+v, %v", info, err)
		}
	}
	if f.requests() != 1 {
		t.Errorf("%d probe requests, want 1", f.requests())
	}
}

func TestConfigErrors(t *testing.T) {
	t.Setenv("EMPTY_KEY", "")
	for _, tc := range []struct {
		opts plugins.Options
		want string
	}{
		{plugins.Options{"provider": "ollama", "model": "m", "batchsize": 3}, `unknown option "batchsize"`},
		{plugins.Options{"provider": "ollama"}, `"model" is required`},
		{plugins.Options{"model": "m"}, `"provider" is required`},
		{plugins.Options{"provider": "cohere", "model": "m"}, `unknown provider "cohere"`},
		{plugins.Options{"provider": "openai", "model": "m", "api_key_env": "RAGD_TEST_NO_SUCH_VAR"}, "RAGD_TEST_NO_SUCH_VAR is not set"},
		{plugins.Options{"provider": "openai", "model": "m", "api_key_env": "EMPTY_KEY"}, "EMPTY_KEY is empty"},
		{plugins.Options{"provider": "ollama", "model": "m", "batch_size": "64"}, `option "batch_size": cannot use string "64" as an integer`},
		{plugins.Options{"provider": "ollama", "model": "m", "prefix": "bge"}, `unknown style "bge"`},
		{plugins.Options{"provider": "ollama", "model": "m", "timeout": "soon"}, `option "timeout"`},
		{plugins.Options{"provider": "ollama", "model": "m", "base_url": "localhost:11434"}, `option "base_url": "localhost:11434"`},
		{plugins.Options{"provider": "ollama", "model": "m", "batch_size": 0}, `"batch_size": 0`},
	} {
		err := New().Configure(ctx, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.opts, err, tc.want)
		}
	}
	if _, err := New().Embed(ctx, plugins.InputQuery, []string{"x"}); err == nil {
		t.Error("Embed before Configure: no error")
	}
}
