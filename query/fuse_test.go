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
	return hAt(doc, 0, score)
}

// hAt is a hit on chunk ord of document doc.
func hAt(doc uint64, ord uint32, score float64) index.Hit {
	return index.Hit{Ref: index.ChunkRef{Doc: index.DocID(doc), Ord: ord}, Vault: "v", Path: string(rune('a'-1+doc)) + ".md", Score: score}
}

// noteHit is a lexical note hit of doc with its passages (their scores are
// chunk scores; the first is the note's best).
func noteHit(doc uint64, score, norm float64, passages ...index.Hit) index.NoteHit {
	if len(passages) == 0 {
		passages = []index.Hit{h(doc, score)}
	}
	return index.NoteHit{Doc: index.DocID(doc), Vault: "v", Path: passages[0].Path, Score: score, Norm: norm, Passages: passages}
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
	got := fuse(o, channelLists{
		lex:   []index.NoteHit{noteHit(a, 12, 0.9), noteHit(b, 7, 0.5), noteHit(c, 3, 0.2)},
		vec:   []index.Hit{h(c, 0.9), h(a, 0.8), h(d, 0.1)},
		graph: []index.Hit{h(d, 5)},
	}, weights(0.7, 0.8, 0.5))
	// Σ w / (k + rank), by hand:
	//   a: 0.7/61 + 0.8/62, c: 0.7/63 + 0.8/61, d: 0.8/63 + 0.5/61, b: 0.7/62
	checkFused(t, "rrf", got, []fused{
		{"a.md", 0.7/61 + 0.8/62},
		{"c.md", 0.7/63 + 0.8/61},
		{"d.md", 0.8/63 + 0.5/61},
		{"b.md", 0.7 / 62},
	})
	// Each candidate keeps its per-channel ranks and raw scores.
	if c0 := got[1]; c0.ranks != [nChannels]int{3, 1, 0} || c0.scores != [nChannels]float64{3, 0.9, 0} {
		t.Errorf("c ranks %v scores %v", c0.ranks, c0.scores)
	}
}

// Convex fusion adds absolute 0–1 scores: lexical norms as given, vector
// similarity above the floor, graph weights as they are; divided by the
// weights of the channels that answered.
func TestFuseConvexOnAbsoluteScales(t *testing.T) {
	o := Options{Fusion: FusionConvex}
	a, b, c, d := uint64(1), uint64(2), uint64(3), uint64(4)
	l := channelLists{
		lex:   []index.NoteHit{noteHit(a, 10, 0.8), noteHit(b, 6, 0.4), noteHit(c, 2, 0.1)},
		vec:   []index.Hit{h(c, 0.9), h(a, 0.5), h(d, 0.45)},
		graph: []index.Hit{h(d, 0.7)},
		floor: 0.4,
	}
	got := fuse(o, l, weights(1, 0.5, 0.25))
	vn := func(s float64) float64 { return (s - 0.4) / 0.6 }
	w := 1.75
	checkFused(t, "convex", got, []fused{
		{"a.md", (0.8 + 0.5*vn(0.5)) / w},
		{"c.md", (0.1 + 0.5*vn(0.9)) / w},
		{"b.md", 0.4 / w},
		{"d.md", (0.5*vn(0.45) + 0.25*0.7) / w},
	})
	// A channel alone keeps its own scale: lexical norms, or similarity
	// above the floor.
	checkFused(t, "lexical alone", fuse(o, channelLists{lex: l.lex}, weights(1, 0.3, 0)),
		[]fused{{"a.md", 0.8}, {"b.md", 0.4}, {"c.md", 0.1}})
	checkFused(t, "vector alone", fuse(o, channelLists{vec: l.vec, floor: 0.4}, weights(1, 0.3, 0)),
		[]fused{{"c.md", vn(0.9)}, {"a.md", vn(0.5)}, {"d.md", vn(0.45)}})
	// A similarity under the floor scores 0, never below.
	if got := vecNorm(0.2, 0.4); got != 0 {
		t.Errorf("vecNorm under the floor = %v", got)
	}
}

// The same weight gives a strong embedder more say than a weak one: its
// relevant notes stand further above the noise floor (simulated channels).
func TestStrongEmbedderCarriesMoreWeight(t *testing.T) {
	o := Options{Fusion: FusionConvex}
	lex := []index.NoteHit{noteHit(1, 10, 0.6), noteHit(2, 9, 0.55)}
	weak := channelLists{lex: lex, vec: []index.Hit{h(2, 0.47), h(1, 0.45)}, floor: 0.44}
	strong := channelLists{lex: lex, vec: []index.Hit{h(2, 0.82), h(1, 0.31)}, floor: 0.30}
	// At the default hybrid weight: no config edit.
	v := HybridDefaults(DefaultOptions, VectorWeight, KeywordVectorScale).Weights[ipc.ChannelVector]
	if p := fusedOf(fuse(o, weak, weights(1, v, 0))); p[0].path != "a.md" {
		t.Errorf("a weak embedder's near-noise opinion overturned the lexical order: %v", p)
	}
	if p := fusedOf(fuse(o, strong, weights(1, v, 0))); p[0].path != "b.md" {
		t.Errorf("a strong embedder's clear opinion did not count: %v", p)
	}
}

// A note is cited by the passage with the most weighted evidence.
func TestFuseCitesTheBestPassage(t *testing.T) {
	o := Options{Fusion: FusionConvex}
	l := channelLists{
		lex:   []index.NoteHit{noteHit(1, 10, 0.5, hAt(1, 0, 10), hAt(1, 3, 6))},
		vec:   []index.Hit{hAt(1, 3, 0.9), hAt(1, 0, 0.41)},
		floor: 0.4,
	}
	if c := fuse(o, l, weights(1, 0, 0))[0]; c.hit.Ref.Ord != 0 {
		t.Errorf("lexical only: cited chunk %d", c.hit.Ref.Ord)
	}
	if c := fuse(o, l, weights(1, 1, 0))[0]; c.hit.Ref.Ord != 3 || len(c.passages) != 2 {
		t.Errorf("hybrid: cited chunk %d, passages %v", c.hit.Ref.Ord, c.passages)
	}
}

func TestFuseTiesKeepFirstListOrder(t *testing.T) {
	o := Options{Fusion: FusionRRF, RRFK: 60}
	got := fuse(o, channelLists{lex: []index.NoteHit{noteHit(1, 9, 0.9), noteHit(2, 8, 0.8)}, vec: []index.Hit{h(3, 0.9), h(4, 0.8)}}, weights(1, 1, 0))
	checkFused(t, "ties", got, []fused{{"a.md", 1.0 / 61}, {"c.md", 1.0 / 61}, {"b.md", 1.0 / 62}, {"d.md", 1.0 / 62}})
}

func TestFusionThroughSearchWithExplain(t *testing.T) {
	f := newFakeIndex()
	f.lex = []index.Hit{hit(1, "v", "a.md", 12), hit(2, "v", "b.md", 6)}
	f.vec = []index.Hit{hit(3, "v", "c.md", 0.9), hit(1, "v", "a.md", 0.8)}
	o := Options{Weights: map[string]float64{ipc.ChannelLexical: 0.7, ipc.ChannelVector: 0.8}, Fusion: FusionRRF, RRFK: 60, Depth: 10,
		MinSimilarity: 0.5}
	e := NewEngine(f).WithOptions(o).WithEmbedder(&fakeEmbedder{sig: "s", vec: []float32{1}}, nil)
	resp := mustSearch(t, e, Request{Text: "x", K: 10, Explain: true})
	type row struct {
		path  string
		score float64
		chans []ChannelScore
	}
	want := []row{
		{"a.md", 0.7/61 + 0.8/62, []ChannelScore{{Channel: ipc.ChannelLexical, Rank: 1, Score: 12, Norm: 1}, {Channel: ipc.ChannelVector, Rank: 2, Score: 0.8, Norm: 0.6}}},
		{"c.md", 0.8 / 61, []ChannelScore{{Channel: ipc.ChannelVector, Rank: 1, Score: 0.9, Norm: 0.8}}},
		{"b.md", 0.7 / 62, []ChannelScore{{Channel: ipc.ChannelLexical, Rank: 2, Score: 6, Norm: 0.5}}},
	}
	if len(resp.Results) != len(want) {
		t.Fatalf("results = %v", paths(resp.Results))
	}
	for i, w := range want {
		r := resp.Results[i]
		if r.Path != w.path || !near(r.Score, w.score) || !near(r.Explain.Fused, w.score) || r.Explain.Reranked != 0 {
			t.Errorf("result %d = %s %v %+v, want %+v", i, r.Path, r.Score, r.Explain, w)
		}
		for k := range w.chans {
			g := r.Explain.Channels[k]
			if g.Channel != w.chans[k].Channel || g.Rank != w.chans[k].Rank || !near(g.Score, w.chans[k].Score) || !near(g.Norm, w.chans[k].Norm) {
				t.Errorf("result %d channels = %+v, want %+v", i, r.Explain.Channels, w.chans)
			}
		}
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
	o := HybridDefaults(base, VectorWeight, KeywordVectorScale)
	if o.Fusion != FusionConvex || o.Weights[ipc.ChannelVector] <= 0 || o.Weights[ipc.ChannelLexical] != 1 || o.Weights[ipc.ChannelGraph] != 0.3 ||
		o.KeywordVectorCut != 1-KeywordVectorScale {
		t.Errorf("hybrid defaults = %+v", o)
	}
	if base.Weights[ipc.ChannelVector] != 0 || DefaultOptions.Weights[ipc.ChannelVector] != 0 {
		t.Error("HybridDefaults changed its argument's weights")
	}
}

// The configured vector weight follows the query's shape: a keyword query
// gets it scaled by KeywordVectorScale, a question all of it; a weight the
// request sets is the request's.
func TestVectorWeightFollowsTheQueryShape(t *testing.T) {
	o := HybridDefaults(DefaultOptions, 0.3, 0.5)
	for _, tc := range []struct {
		text string
		req  Request
		want float64
	}{
		{"sync version history", Request{}, 0.15},
		{"how do I get back an older version of a note", Request{}, 0.3},
		{"sync version history", Request{Weights: map[string]float64{ipc.ChannelVector: 0.2}}, 0.2},
	} {
		if got := o.weight(tc.req, ipc.ChannelVector, tc.text); got != tc.want {
			t.Errorf("%q %+v: vector weight %v, want %v", tc.text, tc.req.Weights, got, tc.want)
		}
		if got := o.weight(tc.req, ipc.ChannelLexical, tc.text); got != 1 {
			t.Errorf("%q: lexical weight %v, want 1", tc.text, got)
		}
	}
	// Scale 0: a keyword query leaves the vector channel out (weight 0:
	// not run in hybrid mode).
	if got := HybridDefaults(DefaultOptions, 0.075, 0).weight(Request{}, ipc.ChannelVector, "excalidraw plugin"); got != 0 {
		t.Errorf("keyword query with scale 0: vector weight %v", got)
	}
}
