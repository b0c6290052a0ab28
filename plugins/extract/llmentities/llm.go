package llmentities

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ragd/ragd/plugins/internal/httpx"
)

// PromptVersion names the prompt and schema below; it is part of every
// cache key, so changing either must change it.
const PromptVersion = "entities-v1"

// EntityTypes are the types the model may assign.
var EntityTypes = []string{"PERSON", "ORGANIZATION", "PRODUCT", "PLACE", "EVENT", "CONCEPT", "OTHER"}

const systemPrompt = `You extract a knowledge graph from one excerpt of a personal note.
Return the named entities the excerpt mentions explicitly: people, organizations, products (software, tools, books, devices), places, events, and specific named concepts (methods, theories, projects). Do not return generic nouns, dates, numbers or the note's own formatting.
For each entity give its name as written in the excerpt (the fullest form), its type, other names or abbreviations the excerpt uses for it (aliases, possibly empty), and your confidence from 0 to 1 that it is a real named entity of that type.
Return relations between the entities you found, stated in the excerpt, as subject, predicate (a short lower-case verb phrase such as "works at", "uses", "part of"), object, with a confidence from 0 to 1. Subject and object must be entity names from your list.
If there is nothing to extract, return empty lists.`

// reply is the model's answer for one chunk, as cached.
type reply struct {
	Entities []struct {
		Name       string   `json:"name"`
		Type       string   `json:"type"`
		Aliases    []string `json:"aliases"`
		Confidence float64  `json:"confidence"`
	} `json:"entities"`
	Relations []struct {
		Subject    string  `json:"subject"`
		Predicate  string  `json:"predicate"`
		Object     string  `json:"object"`
		Confidence float64 `json:"confidence"`
	} `json:"relations"`
}

// schema is the strict JSON schema of reply.
func schema() map[string]any {
	str := map[string]any{"type": "string"}
	num := map[string]any{"type": "number"}
	obj := func(props map[string]any, required ...string) map[string]any {
		return map[string]any{"type": "object", "properties": props,
			"required": required, "additionalProperties": false}
	}
	entity := obj(map[string]any{
		"name":       str,
		"type":       map[string]any{"type": "string", "enum": EntityTypes},
		"aliases":    map[string]any{"type": "array", "items": str},
		"confidence": num,
	}, "name", "type", "aliases", "confidence")
	relation := obj(map[string]any{
		"subject": str, "predicate": str, "object": str, "confidence": num,
	}, "subject", "predicate", "object", "confidence")
	return obj(map[string]any{
		"entities":  map[string]any{"type": "array", "items": entity},
		"relations": map[string]any{"type": "array", "items": relation},
	}, "entities", "relations")
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string         `json:"model"`
	Messages       []message      `json:"messages"`
	Temperature    float64        `json:"temperature"`
	ResponseFormat map[string]any `json:"response_format"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
			Refusal *string `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
}

// ask sends one chunk and parses the reply.
func ask(ctx context.Context, c *httpx.Client, cfg *Config, text string) (reply, error) {
	req := chatRequest{
		Model: cfg.Model,
		Messages: []message{
			{Role: "system", Content: systemPrompt},
			{Role: "user", Content: text},
		},
		Temperature: cfg.Temperature,
		ResponseFormat: map[string]any{
			"type": "json_schema",
			"json_schema": map[string]any{
				"name": "knowledge_graph", "strict": true, "schema": schema(),
			},
		},
	}
	url := cfg.Endpoint("/chat/completions")
	var resp chatResponse
	if err := c.PostJSON(ctx, url, req, &resp); err != nil {
		return reply{}, err
	}
	if len(resp.Choices) == 0 {
		return reply{}, fmt.Errorf("POST %s: reply has no choices", url)
	}
	ch := resp.Choices[0]
	if ch.Message.Refusal != nil && *ch.Message.Refusal != "" {
		return reply{}, fmt.Errorf("POST %s: model refused: %s", url, clip(*ch.Message.Refusal))
	}
	if ch.Message.Content == nil {
		return reply{}, fmt.Errorf("POST %s: reply has no content", url)
	}
	r, err := parseReply(*ch.Message.Content)
	if err != nil {
		if ch.FinishReason == "length" {
			return reply{}, fmt.Errorf("POST %s: reply cut short by the model's token limit: %w", url, err)
		}
		return reply{}, fmt.Errorf("POST %s: %w", url, err)
	}
	return r, nil
}

// parseReply decodes the model's JSON, also when it is wrapped in a
// ```json fence or surrounded by prose.
func parseReply(s string) (reply, error) {
	var r reply
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "```"); i >= 0 {
		body := s[i+3:]
		if nl := strings.IndexByte(body, '\n'); nl >= 0 {
			body = body[nl+1:] // drop the info string ("json")
		}
		if j := strings.Index(body, "```"); j >= 0 {
			body = body[:j]
		}
		s = strings.TrimSpace(body)
	}
	if !strings.HasPrefix(s, "{") {
		i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
		if i < 0 || j < i {
			return r, fmt.Errorf("reply is not JSON: %s", clip(s))
		}
		s = s[i : j+1]
	}
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		return r, fmt.Errorf("reply is not the requested JSON: %w: %s", err, clip(s))
	}
	return r, nil
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

var errNotConfigured = errors.New("llmentities: not configured")
