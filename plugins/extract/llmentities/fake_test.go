package llmentities

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/plugins"
)

// known is the fake model's world knowledge.
var known = []struct {
	name, typ string
	conf      float64
}{
	{"Ada Lovelace", "PERSON", 0.95},
	{"Charles Babbage", "PERSON", 0.9},
	{"Analytical Engine", "PRODUCT", 0.85},
	{"London", "PLACE", 0.8},
	{"Thing", "CONCEPT", 0.2}, // below the default min_confidence
}

// fakeLLM is an OpenAI-compatible /v1/chat/completions server. It checks
// the request the way OpenAI's structured outputs do (strict schema:
// every object closed and fully required) and answers with the entities
// of known found in the user message.
type fakeLLM struct {
	t *testing.T
	// fail may answer request n itself (return true).
	fail func(w http.ResponseWriter, n int) bool
	// wrap formats the JSON content (fences, prose); nil: as is.
	wrap func(string) string

	mu       sync.Mutex
	prompts  []string // user message per answered request
	calls    int
	inflight int
	peak     int
	srv      *httptest.Server
}

func newLLM(t *testing.T) *fakeLLM {
	f := &fakeLLM{t: t}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", f.handle)
	f.srv = httptest.NewServer(mux)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeLLM) requests() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func (f *fakeLLM) handle(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	n := f.calls
	f.calls++
	f.inflight++
	f.peak = max(f.peak, f.inflight)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inflight--
		f.mu.Unlock()
	}()
	time.Sleep(5 * time.Millisecond) // let concurrent requests overlap
	if f.fail != nil && f.fail(w, n) {
		return
	}
	var req struct {
		Model          string `json:"model"`
		Messages       []struct{ Role, Content string }
		Temperature    *float64 `json:"temperature"`
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string         `json:"name"`
				Strict bool           `json:"strict"`
				Schema map[string]any `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	var buf bytes.Buffer
	buf.ReadFrom(r.Body)
	dec := json.NewDecoder(&buf)
	dec.DisallowUnknownFields()
	bad := func(msg string) {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
			"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}})
	}
	if err := dec.Decode(&req); err != nil {
		bad(err.Error())
		return
	}
	rf := req.ResponseFormat
	if req.Model == "" || req.Temperature == nil || len(req.Messages) != 2 || req.Messages[1].Role != "user" {
		bad("malformed request")
		return
	}
	if rf.Type != "json_schema" || rf.JSONSchema.Name == "" || !rf.JSONSchema.Strict {
		bad("want a strict json_schema response_format")
		return
	}
	if err := checkStrict(rf.JSONSchema.Schema, "schema"); err != nil {
		bad("Invalid schema for response_format 'knowledge_graph': " + err.Error())
		return
	}
	text := req.Messages[1].Content
	f.mu.Lock()
	f.prompts = append(f.prompts, text)
	f.mu.Unlock()
	content := answer(text)
	if f.wrap != nil {
		content = f.wrap(content)
	}
	json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": content, "refusal": nil}}},
		"usage": map[string]int{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
	})
}

// checkStrict applies OpenAI's strict-mode rules to a schema.
func checkStrict(s map[string]any, at string) error {
	switch s["type"] {
	case "object":
		props, _ := s["properties"].(map[string]any)
		if s["additionalProperties"] != false {
			return fmt.Errorf("%s: 'additionalProperties' is required to be supplied and to be false", at)
		}
		var req []string
		for _, r := range s["required"].([]any) {
			req = append(req, r.(string))
		}
		for k, v := range props {
			if !slices.Contains(req, k) {
				return fmt.Errorf("%s: 'required' is required to include every property; missing '%s'", at, k)
			}
			if err := checkStrict(v.(map[string]any), at+"."+k); err != nil {
				return err
			}
		}
	case "array":
		return checkStrict(s["items"].(map[string]any), at+"[]")
	case "string", "number", "integer", "boolean":
	default:
		return fmt.Errorf("%s: unsupported type %v", at, s["type"])
	}
	return nil
}

func answer(text string) string {
	var r reply
	for _, k := range known {
		if strings.Contains(text, k.name) {
			aliases := []string{}
			if k.name == "Ada Lovelace" && strings.Contains(text, "Ada") {
				aliases = append(aliases, "Ada", "ada lovelace")
			}
			r.Entities = append(r.Entities, struct {
				Name       string   `json:"name"`
				Type       string   `json:"type"`
				Aliases    []string `json:"aliases"`
				Confidence float64  `json:"confidence"`
			}{k.name, k.typ, aliases, k.conf})
		}
	}
	if strings.Contains(text, "Ada Lovelace") && strings.Contains(text, "Analytical Engine") {
		r.Relations = append(r.Relations, struct {
			Subject    string  `json:"subject"`
			Predicate  string  `json:"predicate"`
			Object     string  `json:"object"`
			Confidence float64 `json:"confidence"`
		}{"Ada Lovelace", "wrote about", "Analytical Engine", 0.9})
	}
	b, _ := json.Marshal(r)
	return strings.ReplaceAll(string(b), "null", "[]") // strict replies never omit a list
}

type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return nil
}

func configured(t *testing.T, f *fakeLLM, opts plugins.Options) (*Extractor, *sleeps) {
	t.Helper()
	if opts == nil {
		opts = plugins.Options{}
	}
	if _, ok := opts["model"]; !ok {
		opts["model"] = "gpt-4o-mini"
	}
	opts["base_url"] = f.srv.URL + "/v1"
	e := New()
	if err := e.Configure(context.Background(), opts); err != nil {
		t.Fatalf("Configure: %v", err)
	}
	s := &sleeps{}
	e.client.Sleep = s.sleep
	return e, s
}
