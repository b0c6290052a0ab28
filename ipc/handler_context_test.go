package ipc_test

import (
	"context"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/ragd/ragd/ipc"
)

func (f *fakeBackend) Context(ctx context.Context, req ipc.ContextRequest) (*ipc.ContextResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.contexts = append(f.contexts, req)
	return &ipc.ContextResponse{Query: req.Query, Grounded: true, Context: "<retrieved-context>\n</retrieved-context>\n"}, nil
}

func (f *fakeBackend) Similar(ctx context.Context, req ipc.SimilarRequest) (*ipc.SimilarResponse, error) {
	if req.Path == "missing.md" {
		return nil, ipc.NotFound("%s is not indexed", req.Path)
	}
	return &ipc.SimilarResponse{Path: req.Path, Notes: []ipc.SimilarNote{{Path: "b.md", Why: "links"}}}, nil
}

func (f *fakeBackend) Plugins(ctx context.Context) (*ipc.PluginsResponse, error) {
	return &ipc.PluginsResponse{Plugins: []ipc.PluginStatus{{Name: "pdf", Kind: "extractor", State: ipc.PluginRunning}}}, nil
}

func TestContextSimilarPluginsRoundTrip(t *testing.T) {
	f := &fakeBackend{}
	c := newClient(t, serve(t, ipc.NewHandler(f, discardLogger())))
	ctx := testContext(t)
	cr, err := c.Context(ctx, ipc.ContextRequest{Query: "  restic  "})
	if err != nil || !cr.Grounded || !strings.HasPrefix(cr.Context, "<retrieved-context>") {
		t.Fatalf("context = %+v, %v", cr, err)
	}
	if got := f.contexts[0]; got.Query != "restic" || got.K != 8 || got.Budget != ipc.DefaultContextBudget || got.Style != "snippets" {
		t.Errorf("defaults not applied: %+v", got)
	}
	sr, err := c.Similar(ctx, ipc.SimilarRequest{Path: "a.md"})
	if err != nil || len(sr.Notes) != 1 || sr.Notes[0].Path != "b.md" {
		t.Fatalf("similar = %+v, %v", sr, err)
	}
	_, err = c.Similar(ctx, ipc.SimilarRequest{Path: "missing.md"})
	var ae *ipc.Error
	if !errors.As(err, &ae) || ae.Status != http.StatusNotFound {
		t.Fatalf("similar of a missing note: %v", err)
	}
	pr, err := c.Plugins(ctx)
	if err != nil || len(pr.Plugins) != 1 || pr.Plugins[0].State != ipc.PluginRunning {
		t.Fatalf("plugins = %+v, %v", pr, err)
	}
}

func TestContextRequestValidation(t *testing.T) {
	for _, body := range []string{
		`{}`, `{"query":"x","budget":-1}`, `{"query":"x","budget":999999999}`,
		`{"query":"x","style":"poem"}`, `{"query":"x","mode":"psychic"}`, `{"query":"x","k":5000}`,
	} {
		if _, err := ipc.DecodeContextRequest(strings.NewReader(body)); err == nil {
			t.Errorf("%s: accepted", body)
		}
	}
	if _, err := ipc.DecodeSearchRequest(strings.NewReader(`{"query":"x","mode":"psychic"}`)); err == nil {
		t.Error("search with a bad mode accepted")
	}
}

// Channels are checked and spelled one way when a search is decoded; the
// lexical channel's old name "bm25" is still read.
func TestDecodeSearchChannels(t *testing.T) {
	req, err := ipc.DecodeSearchRequest(strings.NewReader(
		`{"query":"x","channels":["bm25","graph"],"weights":{"bm25":0.5,"vector":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(req.Channels, []string{ipc.ChannelLexical, ipc.ChannelGraph}) ||
		!reflect.DeepEqual(req.Weights, map[string]float64{ipc.ChannelLexical: 0.5, ipc.ChannelVector: 2}) {
		t.Errorf("channels %v, weights %v", req.Channels, req.Weights)
	}
	for _, body := range []string{
		`{"query":"x","channels":["fulltext"]}`,
		`{"query":"x","weights":{"fulltext":1}}`,
		`{"query":"x","weights":{"lexical":-1}}`,
		`{"query":"x","weights":{"vector":101}}`,
		`{"query":"x","passages":-1}`,
		`{"query":"x","passages":5}`,
		`{"query":"x","snippet_width":-3}`,
		`{"query":"x","snippet_width":100000}`,
	} {
		_, err := ipc.DecodeSearchRequest(strings.NewReader(body))
		var ie *ipc.Error
		if !errors.As(err, &ie) || ie.Status != 400 {
			t.Errorf("%s: %v, want a 400", body, err)
		}
	}
}
