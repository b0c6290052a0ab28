package query

import (
	"math"
	"reflect"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
)

// h is a hit on chunk 0 of document doc, named by its path.
func h(doc uint64, score float64) index.Hit {
	return index.Hit{Ref: index.ChunkRef{Doc: index.DocID(doc)}, Vault: "v", Path: string(rune('a'-1+doc)) + ".md", Score: score}
}

func lists(lex, vec, graph []index.Hit) [nChannels][]index.Hit {
	var l [nChannels][]index.Hit
	l[channelIndex(ipc.ChannelLexical)] = lex
	l[channelIndex(ipc.ChannelVector)] = vec
	l[channelIndex(ipc.ChannelGraph)] = graph
	return l
}

func weights(lex, vec, graph float64) [nChannels]float64 {
	var w [nChannels]float64
	w[channelIndex(ipc.ChannelLexical)] = lex
	w[channelIndex(ipc.ChannelVector)] = vec
	w[channelIndex(ipc.ChannelGraph)] = graph
	return w
}

type fused struct {
	path  string
	score float64
}

func fusedOf(cs []*cand) []fused {
	out := make([]fused, len(cs))
	for i, c := range cs {
		out[i] = fused{c.hit.Path, c.fused}
	}
	return out
}

func checkFused(t *testing.T, name string, got []*cand, want []fused) {
	t.Helper()
	g := fusedOf(got)
	if len(g) != len(want) {
		t.Fatalf("%s: fused %v, want %v", name, g, want)
	}
	for i := range want {
		if g[i].path != want[i].path || math.Abs(g[i].score-want[i].score) > 1e-12 {
			t.Fatalf("%s: fused %v, want %v", name, g, want)
		}
	}
}

func TestFuseWeightedRRF(t *testing.T) {
	o := Options{Fusion: FusionRRF, RRFK: 60}
	a, b, c, d := uint64(1), uint64(2), uint64(3), uint64(4)
	got := fuse(o, lists(
		[]index.Hit{h(a, 12), h(b, 7), h(c, 3)},
		[]index.Hit{h(c, 0.9), h(a, 0.8), h(d, 0.1)},
		[]index.Hit{h(d, 5)},
	), weights(0.7, 0.8, 0.5))
	// Σ w / (k + rank), by hand:
	//   a: 0.7/61 + 0.8/62 = 0.024378…
	//   c: 0.7/63 + 0.8/61 = 0.024226…
	//   d: 0.8/63 + 0.5/61 = 0.020895…
	//   b: 0.7/62          = 0.011290…
	checkFused(t, "rrf", got, []fused{
		{"a.md", 0.7/61 + 0.8/62},
		{"c.md", 0.7/63 + 0.8/61},
		{"d.md", 0.8/63 + 0.5/61},
		{"b.md", 0.7 / 62},
	})
	// Each candidate keeps its per-channel ranks and raw scores.
	c0 := got[1]
	if c0.ranks != [nChannels]int{3, 1, 0} || c0.scores != [nChannels]float64{3, 0.9, 0} {
		t.Errorf("c ranks %v scores %v", c0.ranks, c0.scores)
	}
	// Another k.
	o.RRFK = 1
	checkFused(t, "rrf k=1", fuse(o, lists([]index.Hit{h(a, 1), h(b, 1)}, []index.Hit{h(b, 1)}, nil), weights(1, 2, 0)), []fused{
		{"b.md", 1.0/3 + 2.0/2},
		{"a.md", 1.0 / 2},
	})
}

func TestFuseConvex(t *testing.T) {
	o := Options{Fusion: FusionConvex}
	a, b, c, d := uint64(1), uint64(2), uint64(3), uint64(4)
	got := fuse(o, lists(
		[]index.Hit{h(a, 10), h(b, 6), h(c, 2)},      // normalised 1, 0.5, 0
		[]index.Hit{h(c, 0.9), h(a, 0.5), h(d, 0.1)}, // normalised 1, 0.5, 0
		[]index.Hit{h(d, 3)},                         // a single hit normalises to 1
	), weights(1, 0.5, 0.25))
	// Σ w × normalised score:
	//   a: 1×1 + 0.5×0.5 = 1.25
	//   b: 1×0.5         = 0.5
	//   c: 1×0 + 0.5×1   = 0.5   (ties b: b came first in the first list)
	//   d: 0.5×0 + 0.25×1 = 0.25
	checkFused(t, "convex", got, []fused{{"a.md", 1.25}, {"b.md", 0.5}, {"c.md", 0.5}, {"d.md", 0.25}})

	// Equal scores in a list all normalise to 1; the empty default fusion
	// is convex.
	checkFused(t, "flat", fuse(Options{}, lists(
		[]index.Hit{h(a, 4), h(b, 4)},
		[]index.Hit{h(b, 0.3), h(c, 0.1)},
		nil,
	), weights(1, 1, 0)), []fused{{"b.md", 2}, {"a.md", 1}, {"c.md", 0}})
}

func TestFuseSingleChannelKeepsItsOrderAndScores(t *testing.T) {
	list := []index.Hit{h(3, 0.91), h(1, 0.7), h(2, 0.7), h(4, -0.2)}
	for _, fusion := range []string{FusionConvex, FusionRRF} {
		// The other channels ran but found nothing.
		got := fuse(Options{Fusion: fusion, RRFK: 60}, lists(nil, list, []index.Hit{}), weights(1, 0.3, 1))
		checkFused(t, fusion, got, []fused{{"c.md", 0.91}, {"a.md", 0.7}, {"b.md", 0.7}, {"d.md", -0.2}})
	}
}

func TestFuseTiesKeepFirstListOrder(t *testing.T) {
	o := Options{Fusion: FusionRRF, RRFK: 60}
	// a and c tie (1/61), b and d tie (1/62): the lexical list's come first.
	got := fuse(o, lists([]index.Hit{h(1, 9), h(2, 8)}, []index.Hit{h(3, 0.9), h(4, 0.8)}, nil), weights(1, 1, 0))
	checkFused(t, "ties", got, []fused{{"a.md", 1.0 / 61}, {"c.md", 1.0 / 61}, {"b.md", 1.0 / 62}, {"d.md", 1.0 / 62}})
	// Within one list, the list's own order.
	got = fuse(Options{Fusion: FusionConvex}, lists(nil, []index.Hit{h(4, 1), h(3, 0.5), h(2, 0.5), h(1, 0)}, []index.Hit{h(9, 1)}), weights(0, 1, 0))
	if p := fusedOf(got); p[1].path != "c.md" || p[2].path != "b.md" {
		t.Errorf("in-list tie order = %v", p)
	}
}

func TestFusionThroughSearchWithExplain(t *testing.T) {
	f := newFakeIndex()
	f.lex = []index.Hit{hit(1, "v", "a.md", 12), hit(2, "v", "b.md", 7)}
	f.vec = []index.Hit{hit(3, "v", "c.md", 0.9), hit(1, "v", "a.md", 0.8)}
	o := Options{Weights: map[string]float64{ipc.ChannelLexical: 0.7, ipc.ChannelVector: 0.8}, Fusion: FusionRRF, RRFK: 60, Depth: 10}
	e := NewEngine(f).WithOptions(o).WithEmbedder(&fakeEmbedder{sig: "s", vec: []float32{1}}, nil)
	resp := mustSearch(t, e, Request{Text: "x", K: 10, Explain: true})
	type row struct {
		path  string
		score float64
		chans []ChannelScore
	}
	want := []row{
		{"a.md", 0.7/61 + 0.8/62, []ChannelScore{{Channel: ipc.ChannelLexical, Rank: 1, Score: 12}, {Channel: ipc.ChannelVector, Rank: 2, Score: 0.8}}},
		{"c.md", 0.8 / 61, []ChannelScore{{Channel: ipc.ChannelVector, Rank: 1, Score: 0.9}}},
		{"b.md", 0.7 / 62, []ChannelScore{{Channel: ipc.ChannelLexical, Rank: 2, Score: 7}}},
	}
	if len(resp.Results) != len(want) {
		t.Fatalf("results = %v", paths(resp.Results))
	}
	for i, w := range want {
		r := resp.Results[i]
		if r.Path != w.path || !near(r.Score, w.score) || !near(r.Explain.Fused, w.score) ||
			r.Explain.Reranked != 0 || !reflect.DeepEqual(r.Explain.Channels, w.chans) {
			t.Errorf("result %d = %s %v %+v, want %+v", i, r.Path, r.Score, r.Explain, w)
		}
	}
	// Request weights override the options.
	resp = mustSearch(t, e, Request{Text: "x", K: 10, Weights: map[string]float64{ipc.ChannelVector: 5}})
	if got := paths(resp.Results); !reflect.DeepEqual(got, []string{"a.md", "c.md", "b.md"}) || !near(resp.Results[1].Score, 5.0/61) {
		t.Errorf("reweighted = %v %v", got, resp.Results)
	}
	resp = mustSearch(t, e, Request{Text: "x", K: 10, Weights: map[string]float64{ipc.ChannelLexical: 0.01}})
	if got := paths(resp.Results); !reflect.DeepEqual(got, []string{"c.md", "a.md", "b.md"}) {
		t.Errorf("lexical down-weighted = %v", got)
	}
}

func TestHybridDefaults(t *testing.T) {
	base := DefaultOptions
	base.Weights = map[string]float64{ipc.ChannelLexical: 1, ipc.ChannelVector: 0, ipc.ChannelGraph: 0.3}
	base.Fusion = FusionRRF
	o := HybridDefaults(base)
	if o.Fusion != FusionConvex || o.Weights[ipc.ChannelVector] != 0.05 || o.Weights[ipc.ChannelLexical] != 1 || o.Weights[ipc.ChannelGraph] != 0.3 {
		t.Errorf("hybrid defaults = %+v", o)
	}
	if base.Weights[ipc.ChannelVector] != 0 || DefaultOptions.Weights[ipc.ChannelVector] != 0 {
		t.Error("HybridDefaults changed its argument's weights")
	}
}
