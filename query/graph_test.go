package query

import (
	"context"
	"errors"
	"testing"

	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/ipc"
)

// fakeGraph implements GraphIndex with two links and an entity, and
// records the hops it was asked for.
type fakeGraph struct{ hops int }

var twoLinks = []graph.LinkRef{{Vault: "v", Source: "a.md", Relation: graph.Relation{Raw: "b"}},
	{Vault: "v", Source: "c.md", Relation: graph.Relation{Raw: "b"}}}

func (g *fakeGraph) Backlinks(_, note string) ([]graph.LinkRef, error) {
	if note == "missing" {
		return nil, &graph.ErrNoSuchNote{Name: note}
	}
	return twoLinks, nil
}
func (g *fakeGraph) Links(string, string) ([]graph.LinkRef, error) {
	return nil, errors.New("disk on fire")
}
func (g *fakeGraph) Unresolved(string) []graph.LinkRef { return twoLinks }
func (g *fakeGraph) Neighbors(_, _ string, hops int) ([]graph.EntityInfo, error) {
	g.hops = hops
	return []graph.EntityInfo{{Vault: "v", Type: "note", Name: "b"}}, nil
}
func (g *fakeGraph) Entities(string, string) []graph.EntityInfo { return nil }

func TestGraphAnswersAndNotFound(t *testing.T) {
	e := NewEngine(newFakeIndex()).WithVaults(map[string]string{"v": "/v"})
	g := &fakeGraph{}
	for _, c := range []struct {
		req    ipc.GraphRequest
		status int // 0: answered
	}{
		{ipc.GraphRequest{Query: ipc.GraphBacklinks, Note: "b"}, 0},
		{ipc.GraphRequest{Query: ipc.GraphBacklinks, Note: "missing"}, 404},
		{ipc.GraphRequest{Query: ipc.GraphBacklinks, Note: "b", Vault: "nope"}, 404},
	} {
		_, err := e.Graph(context.Background(), g, c.req)
		var ie *ipc.Error
		switch {
		case c.status == 0 && err != nil:
			t.Errorf("%+v: %v", c.req, err)
		case c.status != 0 && (!errors.As(err, &ie) || ie.Status != c.status):
			t.Errorf("%+v: error %v, want status %d", c.req, err, c.status)
		}
	}
	// A failure of the index is not the request's fault: no status of its own.
	if _, err := e.Graph(context.Background(), g, ipc.GraphRequest{Query: ipc.GraphLinks, Note: "b"}); err == nil || errors.As(err, new(*ipc.Error)) {
		t.Errorf("index failure = %v", err)
	}
	resp, err := e.Graph(context.Background(), g, ipc.GraphRequest{Query: ipc.GraphUnresolved, Limit: 1})
	if err != nil || resp.Total != 2 || len(resp.Links) != 1 || resp.Links[0].Target != "b" {
		t.Errorf("limit 1: %+v %v", resp, err)
	}
	if _, err := e.Graph(context.Background(), g, ipc.GraphRequest{Query: ipc.GraphNeighbors, Entity: "b"}); err != nil || g.hops != 1 {
		t.Errorf("default hops = %d, %v", g.hops, err)
	}
}
