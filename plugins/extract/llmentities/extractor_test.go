package llmentities

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/plugins"
)

var ctx = context.Background()

const note = `# Computing history

Ada Lovelace wrote the first program for the Analytical Engine.
She was called Ada by her friends.

## Places

Charles Babbage lived in London. Thing.

## Empty section
`

func TestExtract(t *testing.T) {
	f := newLLM(t)
	e, _ := configured(t, f, plugins.Options{"max_chars": 200})
	ext, err := e.Extract(ctx, plugins.ExtractRequest{Path: "n/history.md", Data: []byte(note)})
	if err != nil {
		t.Fatal(err)
	}
	if ext.Text != note || ext.Format != plugins.FormatMarkdown {
		t.Errorf("text or format changed: %q %q", ext.Format, ext.Text)
	}
	// Chunks: lines 1-4 ("# Computing history" … "Ada"), 6-8 (Places), 10 (Empty).
	if f.requests() != 3 {
		t.Errorf("%d requests, want one per chunk (3): %q", f.requests(), f.prompts)
	}
	want := []plugins.Entity{
		{Name: "Ada Lovelace", Type: "PERSON", Aliases: []string{"Ada"}, Line: 1, Confidence: 0.95},
		{Name: "Analytical Engine", Type: "PRODUCT", Line: 1, Confidence: 0.85},
		{Name: "Charles Babbage", Type: "PERSON", Line: 6, Confidence: 0.9},
		{Name: "London", Type: "PLACE", Line: 6, Confidence: 0.8},
	}
	if len(ext.Entities) != len(want) {
		t.Fatalf("entities %+v", ext.Entities)
	}
	for i, w := range want {
		g := ext.Entities[i]
		if g.Name != w.Name || g.Type != w.Type || g.Line != w.Line || g.Confidence != w.Confidence ||
			strings.Join(g.Aliases, "|") != strings.Join(w.Aliases, "|") {
			t.Errorf("entity %d = %+v, want %+v", i, g, w)
		}
	}
	if len(ext.Relations) != 1 || ext.Relations[0] != (plugins.Relation{
		Subject: "Ada Lovelace", Predicate: "wrote about", Object: "Analytical Engine", Line: 1, Confidence: 0.9}) {
		t.Errorf("relations %+v", ext.Relations)
	}
}

func TestMinConfidence(t *testing.T) {
	f := newLLM(t)
	e, _ := configured(t, f, plugins.Options{"min_confidence": 0.1})
	ext, err := e.Extract(ctx, plugins.ExtractRequest{Path: "a.txt", Data: []byte("Thing and London.")})
	if err != nil {
		t.Fatal(err)
	}
	if len(ext.Entities) != 2 || ext.Format != plugins.FormatText {
		t.Errorf("entities %+v, format %q", ext.Entities, ext.Format)
	}
}

func TestMemoryCache(t *testing.T) {
	f := newLLM(t)
	e, _ := configured(t, f, plugins.Options{"max_chars": 200})
	req := plugins.ExtractRequest{Path: "h.md", Data: []byte(note)}
	first, err := e.Extract(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	n := f.requests()
	again, err := e.Extract(ctx, req)
	if err != nil || f.requests() != n {
		t.Fatalf("unchanged note sent again: %d → %d requests (%v)", n, f.requests(), err)
	}
	if len(again.Entities) != len(first.Entities) || again.Entities[2].Name != first.Entities[2].Name || again.Entities[2].Line != first.Entities[2].Line {
		t.Errorf("cached extraction differs")
	}
	// Edit one section: only its chunk is sent.
	edited := strings.Replace(note, "lived in London", "lived in London, England", 1)
	if _, err := e.Extract(ctx, plugins.ExtractRequest{Path: "h.md", Data: []byte(edited)}); err != nil {
		t.Fatal(err)
	}
	if f.requests() != n+1 || !strings.Contains(f.prompts[len(f.prompts)-1], "England") {
		t.Errorf("edit of one section: %d new requests", f.requests()-n)
	}
	// A different model misses the cache.
	e2, _ := configured(t, f, plugins.Options{"model": "other", "max_chars": 200})
	e2.cache = e.cache
	if _, err := e2.Extract(ctx, req); err != nil || f.requests() != n+4 {
		t.Errorf("another model reused the cache: %d requests", f.requests())
	}
}

func TestDiskCache(t *testing.T) {
	f := newLLM(t)
	dir := filepath.Join(t.TempDir(), "cache")
	e, _ := configured(t, f, plugins.Options{"cache_dir": dir, "cache_entries": 0})
	req := plugins.ExtractRequest{Path: "h.md", Data: []byte(note)}
	if _, err := e.Extract(ctx, req); err != nil {
		t.Fatal(err)
	}
	n := f.requests()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*"))
	if len(files) != n {
		t.Fatalf("%d cache files for %d requests: %v", len(files), n, files)
	}
	for _, p := range files {
		name := filepath.Base(p)
		if !strings.HasSuffix(name, ".json") || len(name) != 64+5 || filepath.Base(filepath.Dir(p)) != name[:2] {
			t.Errorf("cache file %s not named by its hash", p)
		}
	}
	// A new process: empty memory, same directory.
	e2, _ := configured(t, f, plugins.Options{"cache_dir": dir})
	ext, err := e2.Extract(ctx, req)
	if err != nil || f.requests() != n || len(ext.Entities) != 4 {
		t.Fatalf("disk cache missed: %d requests, %v, %+v", f.requests()-n, err, ext.Entities)
	}
	// A damaged file is asked again and rewritten.
	os.WriteFile(files[0], []byte("{"), 0o600)
	e3, _ := configured(t, f, plugins.Options{"cache_dir": dir})
	if _, err := e3.Extract(ctx, req); err != nil || f.requests() != n+1 {
		t.Errorf("damaged entry: %d requests, %v", f.requests()-n, err)
	}
	if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), `"prompt_version":"`+PromptVersion) {
		t.Errorf("damaged entry not rewritten: %s", b)
	}
}

func TestFencedReply(t *testing.T) {
	f := newLLM(t)
	f.wrap = func(s string) string { return "Here is the JSON:\n```json\n" + s + "\n```\n" }
	e, _ := configured(t, f, nil)
	ext, err := e.Extract(ctx, plugins.ExtractRequest{Path: "a.md", Data: []byte("Ada Lovelace in London.")})
	if err != nil || len(ext.Entities) != 2 {
		t.Fatalf("%v, %+v", err, ext.Entities)
	}
}

func TestRetriesAndErrors(t *testing.T) {
	f := newLLM(t)
	f.fail = func(w http.ResponseWriter, n int) bool {
		switch n {
		case 0:
			w.Header().Set("Retry-After", "2")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"message":"Rate limit reached for gpt-4o-mini","type":"tokens"}}`))
			return true
		case 1:
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error":{"message":"The server had an error while processing your request."}}`))
			return true
		case 3:
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"message":"Invalid schema for response_format","type":"invalid_request_error"}}`))
			return true
		}
		return false
	}
	e, s := configured(t, f, nil)
	if _, err := e.Extract(ctx, plugins.ExtractRequest{Path: "a.md", Data: []byte("London")}); err != nil {
		t.Fatal(err)
	}
	if f.requests() != 3 || len(s.d) != 2 || s.d[0].Seconds() != 2 {
		t.Errorf("%d requests, sleeps %v", f.requests(), s.d)
	}
	_, err := e.Extract(ctx, plugins.ExtractRequest{Path: "b.md", Data: []byte("\n\nParis")})
	if err == nil {
		t.Fatal("400: no error")
	}
	for _, want := range []string{"b.md", "chunk at line 3", "400", "Invalid schema for response_format", "/v1/chat/completions"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestConcurrency(t *testing.T) {
	f := newLLM(t)
	e, _ := configured(t, f, plugins.Options{"concurrency": 2, "max_chars": 200})
	var b strings.Builder
	for i := range 12 {
		b.WriteString("# Section " + string(rune('A'+i)) + "\n\nLondon text.\n\n")
	}
	if _, err := e.Extract(ctx, plugins.ExtractRequest{Path: "c.md", Data: []byte(b.String())}); err != nil {
		t.Fatal(err)
	}
	if f.requests() != 12 || f.peak > 2 || f.peak < 1 {
		t.Errorf("%d requests, peak in flight %d (limit 2)", f.requests(), f.peak)
	}
	// Identical chunks in one note are asked once.
	same := strings.Repeat("# S\n\nAda Lovelace\n\n", 3)
	n := f.requests()
	ext, err := e.Extract(ctx, plugins.ExtractRequest{Path: "d.md", Data: []byte(same)})
	if err != nil || f.requests() != n+1 || len(ext.Entities) != 3 || ext.Entities[2].Line != 9 {
		t.Errorf("%d requests, %v, %+v", f.requests()-n, err, ext.Entities)
	}
}

func TestInfoAndConfig(t *testing.T) {
	f := newLLM(t)
	e, _ := configured(t, f, plugins.Options{"extensions": []any{"MD", ".txt"}})
	info, err := e.ExtractorInfo(ctx)
	if err != nil || info.Name != "llmentities" || strings.Join(info.Extensions, ",") != ".md,.txt" {
		t.Errorf("info %+v, %v", info, err)
	}
	for _, tc := range []struct {
		opts plugins.Options
		want string
	}{
		{plugins.Options{"model": "m", "temprature": 0}, `unknown option "temprature"`},
		{plugins.Options{}, `"model" is required`},
		{plugins.Options{"model": "m", "cache_dir": "cache"}, `option "cache_dir": "cache" is not an absolute path`},
		{plugins.Options{"model": "m", "min_confidence": 2}, `option "min_confidence"`},
		{plugins.Options{"model": "m", "concurrency": 0}, `option "concurrency"`},
		{plugins.Options{"model": "m", "extensions": []any{"a/b"}}, `option "extensions"`},
		{plugins.Options{"model": "m", "api_key_env": "RAGD_TEST_NO_KEY"}, "RAGD_TEST_NO_KEY is not set"},
	} {
		err := New().Configure(ctx, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.opts, err, tc.want)
		}
	}
	if _, err := New().Extract(ctx, plugins.ExtractRequest{}); err == nil {
		t.Error("Extract before Configure: no error")
	}
}
