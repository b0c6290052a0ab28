package ipc_test

import (
	"errors"
	"net/url"
	"testing"

	"github.com/ragd/ragd/ipc"
)

// A graph query is checked when it is decoded: its name, what it needs and
// its numbers.
func TestDecodeGraphRequest(t *testing.T) {
	for _, c := range []struct {
		query, params string
		status        int // 0: accepted
		want          ipc.GraphRequest
	}{
		{ipc.GraphBacklinks, "note=b&vault=v", 0, ipc.GraphRequest{Query: ipc.GraphBacklinks, Note: "b", Vault: "v"}},
		{ipc.GraphLinks, "note=+b+", 0, ipc.GraphRequest{Query: ipc.GraphLinks, Note: "b"}},
		{ipc.GraphNeighbors, "entity=%23tag&hops=3&limit=5", 0, ipc.GraphRequest{Query: ipc.GraphNeighbors, Entity: "#tag", Hops: 3, Limit: 5}},
		{ipc.GraphEntities, "type=person", 0, ipc.GraphRequest{Query: ipc.GraphEntities, Type: "person"}},
		{ipc.GraphUnresolved, "", 0, ipc.GraphRequest{Query: ipc.GraphUnresolved}},
		{ipc.GraphBacklinks, "note=+", 400, ipc.GraphRequest{}},
		{ipc.GraphLinks, "", 400, ipc.GraphRequest{}},
		{ipc.GraphNeighbors, "", 400, ipc.GraphRequest{}},
		{ipc.GraphNeighbors, "entity=b&hops=4", 400, ipc.GraphRequest{}},
		{ipc.GraphNeighbors, "entity=b&hops=-1", 400, ipc.GraphRequest{}},
		{ipc.GraphEntities, "limit=x", 400, ipc.GraphRequest{}},
		{"sideways", "", 404, ipc.GraphRequest{}},
	} {
		q, err := url.ParseQuery(c.params)
		if err != nil {
			t.Fatal(err)
		}
		req, err := ipc.DecodeGraphRequest(c.query, q)
		var ie *ipc.Error
		switch {
		case c.status == 0 && (err != nil || req != c.want):
			t.Errorf("%s?%s = %+v, %v; want %+v", c.query, c.params, req, err, c.want)
		case c.status != 0 && (!errors.As(err, &ie) || ie.Status != c.status):
			t.Errorf("%s?%s: error %v, want status %d", c.query, c.params, err, c.status)
		}
	}
}
