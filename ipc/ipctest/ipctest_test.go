package ipctest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/ipc/ipctest"
)

// A fake serves what it sets; the rest answers as a daemon without those
// endpoints would.
func TestBackendServesWhatItSets(t *testing.T) {
	b := &ipctest.Backend{SearchFunc: func(_ context.Context, req ipc.SearchRequest) (*ipc.SearchResponse, error) {
		return &ipc.SearchResponse{Query: req.Query, Results: []ipc.Result{{Path: "a.md"}}}, nil
	}}
	c := ipctest.Serve(t, b).Client
	resp, err := c.Search(t.Context(), ipc.SearchRequest{Query: "x"})
	if err != nil || len(resp.Results) != 1 || resp.Results[0].Path != "a.md" {
		t.Fatalf("search: %+v %v", resp, err)
	}
	if _, err := c.Status(t.Context()); !errors.Is(err, ipc.ErrNotFound) {
		t.Errorf("status of a fake without StatusFunc: %v, want ErrNotFound", err)
	}
}

// Anything implementing one endpoint's interface can be served.
type onlyPlugins struct{}

func (onlyPlugins) Plugins(context.Context) (*ipc.PluginsResponse, error) {
	return &ipc.PluginsResponse{Plugins: []ipc.PluginStatus{{Name: "p"}}}, nil
}

func TestServeOneInterface(t *testing.T) {
	c := ipctest.Serve(t, onlyPlugins{}).Client
	if resp, err := c.Plugins(t.Context()); err != nil || len(resp.Plugins) != 1 {
		t.Errorf("plugins: %+v %v", resp, err)
	}
	if _, err := c.Search(t.Context(), ipc.SearchRequest{Query: "x"}); !errors.Is(err, ipc.ErrNotFound) {
		t.Errorf("search: %v, want ErrNotFound", err)
	}
}
