package query

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
)

func TestRerankReordersAndExplains(t *testing.T) {
	f := threeChannels()
	f.pages = map[index.ChunkRef]int{refOf(2): 4}
	rr := &fakeReranker{scores: map[string]float64{"a.md": 0.1, "b.md": 0.9, "c.md": 0.5, "d.md": 0.3}}
	o := opts()
	o.Fusion = FusionRRF
	e := NewEngine(f).WithOptions(o).WithEmbedder(&fakeEmbedder{sig: "s", vec: []float32{1}}, nil).WithReranker(rr)
	resp := mustSearch(t, e, Request{Text: "mode:hybrid garden beds", K: 3, Explain: true})
	if got := paths(resp.Results); !reflect.DeepEqual(got, []string{"b.md", "c.md", "d.md"}) {
		t.Fatalf("reranked = %v", got)
	}
	if rr.query != "garden beds" {
		t.Errorf("reranker query = %q, want the query without its filters", rr.query)
	}
	// The reranker saw every fused candidate with its text, in fused order.
	if len(rr.got) != 4 || rr.got[0].Path != "a.md" || rr.got[0].Text != "text of "+refOf(1).String() ||
		rr.got[0].ID != refOf(1).String() || rr.got[0].Heading != "Ha.md" {
		t.Errorf("reranker candidates = %+v", rr.got)
	}
	b := resp.Results[0]
	if b.Score != 0.9 || b.Text != "text of "+refOf(2).String() || b.Page != 4 {
		t.Errorf("b = %+v", b)
	}
	x := b.Explain
	if x == nil || x.Reranked != 0.9 || !near(x.Fused, 1/62.0) ||
		!reflect.DeepEqual(x.Channels, []ChannelScore{{Channel: ipc.ChannelLexical, Rank: 2, Score: 5, Norm: 5.0 / 9}}) {
		t.Errorf("explain b = %+v", x)
	}
	// c: vector rank 1.
	if x := resp.Results[1].Explain; len(x.Channels) != 1 || x.Channels[0].Channel != ipc.ChannelVector || x.Channels[0].Rank != 1 ||
		x.Channels[0].Score != 0.9 || !near(x.Channels[0].Norm, (0.9-0.01)/0.99) || !near(x.Fused, 1/61.0) {
		t.Errorf("explain c = %+v", x)
	}
	// Without Explain, no explanation.
	resp = mustSearch(t, e, Request{Text: "garden", K: 3})
	if resp.Results[0].Explain != nil {
		t.Error("explain filled without being asked")
	}

	// RerankDepth bounds what the reranker sees (never below k).
	o.RerankDepth = 2
	e = e.WithOptions(o)
	mustSearch(t, e, Request{Text: "garden", K: 1})
	if len(rr.got) != 2 {
		t.Errorf("reranker saw %d candidates with depth 2", len(rr.got))
	}
	mustSearch(t, e, Request{Text: "garden", K: 3})
	if len(rr.got) != 3 {
		t.Errorf("reranker saw %d candidates with depth 2 and k 3", len(rr.got))
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

func TestRerankFailureKeepsFusedOrder(t *testing.T) {
	for name, rr := range map[string]*fakeReranker{
		"error":       {err: errors.New("model not loaded")},
		"short reply": {scores: map[string]float64{"a.md": 1}, short: true},
	} {
		t.Run(name, func(t *testing.T) {
			f := threeChannels()
			o := opts()
			o.Fusion = FusionRRF
			base := NewEngine(f).WithOptions(o).WithEmbedder(&fakeEmbedder{sig: "s", vec: []float32{1}}, nil)
			want := mustSearch(t, base, Request{Text: "garden", K: 4})
			resp, err := base.WithReranker(rr).Search(context.Background(), Request{Text: "garden", K: 4, Explain: true})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(paths(resp.Results), paths(want.Results)) {
				t.Errorf("order %v, want the fused %v", paths(resp.Results), paths(want.Results))
			}
			for i, r := range resp.Results {
				if r.Score != want.Results[i].Score || r.Explain.Reranked != 0 {
					t.Errorf("result %d = %+v, want fused score %v", i, r, want.Results[i].Score)
				}
			}
			if !reflect.DeepEqual(resp.Degraded, []string{"rerank"}) || !strings.HasPrefix(resp.DegradedWhy[0], "reranker: ") {
				t.Errorf("degraded %v %q", resp.Degraded, resp.DegradedWhy)
			}
		})
	}
}
