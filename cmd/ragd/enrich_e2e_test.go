package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

// chatServer is an OpenAI-compatible chat completions endpoint that
// answers the llm-entities plugin's structured-output requests with the
// entities of world named in the excerpt.
type chatServer struct {
	calls atomic.Int64
	srv   *httptest.Server
}

var world = []struct {
	name, typ string
	aliases   []string
}{
	{"NASA", "ORGANIZATION", []string{"National Aeronautics and Space Administration"}},
	{"Neil Armstrong", "PERSON", []string{"Armstrong"}},
}

func newChatServer(t *testing.T) *chatServer {
	c := &chatServer{}
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		c.calls.Add(1)
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
			ResponseFormat struct {
				Type string `json:"type"`
			} `json:"response_format"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) != 2 || req.ResponseFormat.Type != "json_schema" {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		text := req.Messages[1].Content
		type entity struct {
			Name       string   `json:"name"`
			Type       string   `json:"type"`
			Aliases    []string `json:"aliases"`
			Confidence float64  `json:"confidence"`
		}
		type relation struct {
			Subject    string  `json:"subject"`
			Predicate  string  `json:"predicate"`
			Object     string  `json:"object"`
			Confidence float64 `json:"confidence"`
		}
		out := struct {
			Entities  []entity   `json:"entities"`
			Relations []relation `json:"relations"`
		}{Entities: []entity{}, Relations: []relation{}}
		for _, e := range world {
			if strings.Contains(text, e.name) {
				out.Entities = append(out.Entities, entity{e.name, e.typ, e.aliases, 0.9})
			}
		}
		if len(out.Entities) == 2 {
			out.Relations = append(out.Relations, relation{"Neil Armstrong", "flew for", "NASA", 0.8})
		}
		content, _ := json.Marshal(out)
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": string(content)}}},
		})
	}))
	t.Cleanup(c.srv.Close)
	return c
}

func TestEntityExtractorEndToEnd(t *testing.T) {
	chat := newChatServer(t)
	apollo := "# Apollo\n\nNASA launched Apollo 11 in 1969.\n\nNeil Armstrong walked on the Moon first.\n"
	e := newEnv(t, map[string]string{
		"apollo.md":  apollo,
		"garden.md":  "# Garden\n\nTomatoes need deep watering.\n",
		"readme.txt": "Nothing named here.\n",
	})
	e.writeConfig(fmt.Sprintf("\n[index]\nentity_extractor = \"entities\"\n\n[[plugin]]\nname = \"entities\"\nkind = \"extractor\"\n"+
		"builtin = \"llm-entities\"\n[plugin.options]\nmodel = \"test-model\"\nbase_url = %q\nmax_retries = 0\n", chat.srv.URL+"/v1"))
	d := e.start()
	ctx := context.Background()
	first := chat.calls.Load()
	if first != 3 {
		t.Errorf("model called %d times for 3 notes", first)
	}

	persons := func() []ipc.GraphEntity {
		t.Helper()
		resp, err := d.Client.Graph(ctx, ipc.GraphRequest{Query: ipc.GraphEntities, Type: "person"})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Entities
	}
	if p := persons(); len(p) != 1 || p[0].Name != "Neil Armstrong" || p[0].Type != "PERSON" || p[0].Incoming != 1 ||
		len(p[0].Aliases) != 1 || p[0].Aliases[0] != "Armstrong" {
		t.Errorf("persons = %+v", p)
	}
	// The graph channel finds the note by the entity's alias alone.
	resp, err := d.Client.Search(ctx, ipc.SearchRequest{Query: "National Aeronautics and Space Administration", K: 5,
		Weights: map[string]float64{"graph": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 || resp.Results[0].Path != "apollo.md" {
		t.Errorf("search by alias = %s", paths(resp.Results))
	}
	// Status counts them.
	gs := d.WaitStatus(t, "the graph to hold the 3 notes", func(st *ipc.StatusResponse) bool {
		return ragdtest.Idle(st) && st.Graph != nil && st.Graph.Notes == 3
	}).Graph
	if gs.Typed != 2 || !gs.Consistent {
		t.Errorf("graph status = %+v", gs)
	}

	// A second pass sends nothing: the notes are unchanged.
	if _, err := d.Client.Reindex(ctx, ipc.ReindexRequest{Vault: "notes"}); err != nil {
		t.Fatal(err)
	}
	d.WaitIdle(t)
	if n := chat.calls.Load(); n != first {
		t.Errorf("second pass called the model %d more times", n-first)
	}
	// Nor does a copy of a note after a restart (the plugin's own memory
	// cache is gone): the enrichment is cached by content in the index.
	d.Stop(t)
	if err := os.WriteFile(filepath.Join(e.Vault, "copy.md"), []byte(apollo), 0o644); err != nil {
		t.Fatal(err)
	}
	d = e.start()
	if n := chat.calls.Load(); n != first {
		t.Errorf("a copied note called the model %d more times", n-first)
	}
	if p := persons(); len(p) != 1 || p[0].Incoming != 2 {
		t.Errorf("after the copy, persons = %+v", p)
	}
}
