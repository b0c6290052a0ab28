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

func TestModesRunOnlyTheirChannels(t *testing.T) {
	tests := []struct {
		name    string
		opt     Options
		req     Request
		want    []string // channels called
		embeds  int
		results []string
	}{
		{"lexical", opts(), Request{Text: "garden", Mode: ipc.ModeLexical}, []string{ipc.ChannelLexical}, 0, []string{"a.md", "b.md"}},
		{"vector", opts(), Request{Text: "garden", Mode: ipc.ModeVector}, []string{ipc.ChannelVector}, 1, []string{"c.md", "a.md"}},
		{"mode written in the query", opts(), Request{Text: "mode:vector garden"}, []string{ipc.ChannelVector}, 1, []string{"c.md", "a.md"}},
		{"request mode wins over the query's", opts(), Request{Text: "mode:vector garden", Mode: ipc.ModeLexical}, []string{ipc.ChannelLexical}, 0, []string{"a.md", "b.md"}},
		{"hybrid, all weights", opts(), Request{Text: "garden"}, []string{ipc.ChannelLexical, ipc.ChannelVector, ipc.ChannelGraph}, 1, nil},
		{"hybrid defaults: vector weight 0", DefaultOptions, Request{Text: "garden"}, []string{ipc.ChannelLexical}, 0, []string{"a.md", "b.md"}},
		{"hybrid, request weight 0 for vector", opts(), Request{Text: "garden", Weights: map[string]float64{ipc.ChannelVector: 0, ipc.ChannelGraph: 0}},
			[]string{ipc.ChannelLexical}, 0, []string{"a.md", "b.md"}},
		{"hybrid defaults, request turns graph on", DefaultOptions, Request{Text: "garden", Weights: map[string]float64{ipc.ChannelGraph: 0.5}},
			[]string{ipc.ChannelLexical, ipc.ChannelGraph}, 0, nil},
		{"channels override the mode", opts(), Request{Text: "garden", Mode: ipc.ModeLexical, Channels: []string{ipc.ChannelGraph}},
			[]string{ipc.ChannelGraph}, 0, []string{"d.md"}},
		{"channels run at weight 0", DefaultOptions, Request{Text: "garden", Channels: []string{ipc.ChannelVector, ipc.ChannelGraph}},
			[]string{ipc.ChannelVector, ipc.ChannelGraph}, 1, nil},
		// Without a calibrated floor (nor MinSimilarity) the vector channel
		// grounds nothing on its own.
		{"vector mode at weight 0, no floor", DefaultOptions, Request{Text: "garden", Mode: ipc.ModeVector}, []string{ipc.ChannelVector}, 1, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := threeChannels()
			emb := &fakeEmbedder{sig: "sig-1", vec: []float32{1, 0}}
			tc.req.K = 10
			resp := mustSearch(t, NewEngine(f).WithOptions(tc.opt).WithEmbedder(emb, nil), tc.req)
			var ran []string
			for _, ch := range channels {
				if f.called(ch) > 0 {
					ran = append(ran, ch)
				}
			}
			if !reflect.DeepEqual(ran, tc.want) {
				t.Errorf("channels called %v, want %v", ran, tc.want)
			}
			if emb.calls() != tc.embeds {
				t.Errorf("embedder called %d times, want %d", emb.calls(), tc.embeds)
			}
			if len(resp.Degraded) != 0 {
				t.Errorf("degraded %v %v", resp.Degraded, resp.DegradedWhy)
			}
			if tc.results != nil && (len(tc.results) != len(resp.Results) || len(tc.results) > 0 && !reflect.DeepEqual(paths(resp.Results), tc.results)) {
				t.Errorf("results %v, want %v", paths(resp.Results), tc.results)
			}
			if tc.embeds > 0 {
				if f.vecSig != "sig-1" || !reflect.DeepEqual(f.vecQ, []float32{1, 0}) || emb.texts[0] != "garden" {
					t.Errorf("vector channel got sig %q q %v for text %q", f.vecSig, f.vecQ, emb.texts[0])
				}
			}
		})
	}
}

func TestSingleChannelSearchesExactlyK(t *testing.T) {
	f := threeChannels()
	mustSearch(t, NewEngine(f), Request{Text: "garden", K: 7})
	if f.ks[ipc.ChannelLexical] != 7 {
		t.Errorf("lexical-only depth = %d, want k", f.ks[ipc.ChannelLexical])
	}
	f = threeChannels()
	o := opts()
	o.Depth = 50
	mustSearch(t, NewEngine(f).WithOptions(o).WithEmbedder(&fakeEmbedder{sig: "s"}, nil), Request{Text: "garden", K: 7})
	// Notes for the lexical channel; chunks (three per note) for the others.
	for ch, want := range map[string]int{ipc.ChannelLexical: 50, ipc.ChannelVector: 150, ipc.ChannelGraph: 150} {
		if f.ks[ch] != want {
			t.Errorf("%s fused depth = %d, want %d", ch, f.ks[ch], want)
		}
	}
}

func TestDegradedChannels(t *testing.T) {
	lexOnly := []string{"a.md", "b.md"}
	tests := []struct {
		name   string
		emb    QueryEmbedder
		why    func() string
		vecErr error
		want   string // substring of the reason
	}{
		{"no embedder", nil, nil, nil, "semantic search is not configured"},
		{"no embedder, with a reason", nil, func() string { return "embedder plugin crashed" }, nil, "embedder plugin crashed"},
		{"no embedder, empty reason", nil, func() string { return "" }, nil, "semantic search is not configured"},
		{"embedder fails", &fakeEmbedder{sig: "s", err: errors.New("connection refused")}, nil, nil, "embedder: connection refused"},
		{"no vectors yet", &fakeEmbedder{sig: "s", vec: []float32{1}}, nil, index.ErrNoVectors, "embedding in progress"},
		{"vector search fails", &fakeEmbedder{sig: "s", vec: []float32{1}}, nil, errors.New("disk on fire"), "disk on fire"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := threeChannels()
			f.vecErr = tc.vecErr
			o := opts()
			o.Weights[ipc.ChannelGraph] = 0
			e := NewEngine(f).WithOptions(o)
			if tc.emb != nil || tc.why != nil {
				e = e.WithEmbedder(tc.emb, tc.why)
			}
			resp := mustSearch(t, e, Request{Text: "garden", K: 10})
			if !reflect.DeepEqual(resp.Degraded, []string{ipc.ChannelVector}) || len(resp.DegradedWhy) != 1 ||
				!strings.Contains(resp.DegradedWhy[0], tc.want) {
				t.Fatalf("degraded %v why %q, want [vector] with %q", resp.Degraded, resp.DegradedWhy, tc.want)
			}
			// Answered from BM25 alone, as a lexical query would be: scores
			// on the lexical scale.
			if !resp.Grounded || !reflect.DeepEqual(paths(resp.Results), lexOnly) || resp.Results[0].Score != 1 {
				t.Errorf("results = %+v", resp.Results)
			}
		})
	}

	// Vector mode without an embedder: nothing, with reasons.
	resp := mustSearch(t, NewEngine(threeChannels()), Request{Text: "garden", K: 10, Mode: ipc.ModeVector})
	if len(resp.Results) != 0 || resp.Grounded || !reflect.DeepEqual(resp.Degraded, []string{ipc.ChannelVector}) {
		t.Fatalf("vector mode without embedder = %+v", resp)
	}
	joined := strings.Join(resp.Suggestions, "\n")
	if !strings.Contains(joined, "vector channel did not answer") || !strings.Contains(joined, "mode hybrid") {
		t.Errorf("suggestions = %q", resp.Suggestions)
	}
}

func TestResultsCarryTextCitationsAndParents(t *testing.T) {
	f := newFakeIndex()
	a, b, c := hit(1, "notes", "a.md", 3), hit(2, "work", "b.md", 2), hit(3, "notes", "c.md", 1)
	c.Ref.Ord, c.Parent = 2, 1
	f.lex = []index.Hit{a, b, c}
	f.gone = map[index.ChunkRef]bool{b.Ref: true}
	f.parents = map[[2]uint64]index.Parent{
		{1, 0}: {Heading: []string{"A"}, LineStart: 1, LineEnd: 9},
		{3, 1}: {Heading: []string{"C", "Sub"}, LineStart: 5, LineEnd: 20},
	}
	e := NewEngine(f)

	resp := mustSearch(t, e, Request{Text: "running gardens", K: 10})
	if want := e.Terms("running gardens"); !reflect.DeepEqual(f.terms[ipc.ChannelLexical], want) || len(want) != 2 {
		t.Errorf("terms = %q", f.terms[ipc.ChannelLexical])
	}
	// The vanished chunk is dropped; the others keep text and citation.
	if got := paths(resp.Results); !reflect.DeepEqual(got, []string{"a.md", "c.md"}) {
		t.Fatalf("results = %v", got)
	}
	r := resp.Results[1]
	if r.Text != "text of "+c.Ref.String() || r.ID != c.Ref.String() || r.LineStart != 3 || r.LineEnd != 5 || r.Title != "c" ||
		r.Vault != "notes" || r.Heading != "Hc.md" || !reflect.DeepEqual(r.Headings, []string{"Hc.md"}) || !near(r.Score, 1.0/3) {
		t.Errorf("c = %+v", r)
	}
	// Parents come from Parent(doc, hit.Parent).
	if p := resp.Results[0].Parent; p == nil || p.LineEnd != 9 {
		t.Errorf("a's parent = %+v", p)
	}
	if p := r.Parent; p == nil || p.Heading != "C > Sub" {
		t.Errorf("c's parent = %+v", p)
	}

	// Text is read for the notes asked for; a spare's only when one of
	// them vanished, and it takes the vanished note's place (a reranker
	// keeps the fusion depth, so spares are retrieved).
	er := e.WithReranker(&metaReranker{fakeReranker{scores: map[string]float64{"a.md": 3, "b.md": 2, "c.md": 1}}})
	f.calls["chunks"], f.chunkRefs = 0, nil
	resp = mustSearch(t, er, Request{Text: "running gardens", K: 2})
	if got := paths(resp.Results); !reflect.DeepEqual(got, []string{"a.md", "c.md"}) {
		t.Fatalf("K=2 results = %v", got)
	}
	if want := []index.ChunkRef{a.Ref, b.Ref, c.Ref}; f.called("chunks") != 2 || !reflect.DeepEqual(f.chunkRefs, want) {
		t.Errorf("K=2: chunks read %d times, %v; want twice, %v", f.called("chunks"), f.chunkRefs, want)
	}
	f.calls["chunks"], f.chunkRefs = 0, nil
	resp = mustSearch(t, er, Request{Text: "running gardens", K: 1})
	if got := paths(resp.Results); !reflect.DeepEqual(got, []string{"a.md"}) || !reflect.DeepEqual(f.chunkRefs, []index.ChunkRef{a.Ref}) {
		t.Errorf("K=1 results = %v, chunks read %v; want a.md's only", got, f.chunkRefs)
	}

	// NoText: citations without text (and without loading it).
	f.calls["chunks"] = 0
	resp = mustSearch(t, e, Request{Text: "x y", K: 10, NoText: true})
	if len(resp.Results) != 3 || f.called("chunks") != 0 {
		t.Fatalf("no-text results = %v (chunks loaded %d times)", paths(resp.Results), f.called("chunks"))
	}
	for _, r := range resp.Results {
		if r.Text != "" || r.LineStart == 0 || r.Path == "" {
			t.Errorf("no-text result = %+v", r)
		}
	}
	if resp.Results[2].Parent == nil {
		t.Error("no-text result lost its parent")
	}
	// Reranking loads text for the reranker but NoText still returns none.
	e = e.WithReranker(&fakeReranker{scores: map[string]float64{"c.md": 2, "a.md": 1}})
	resp = mustSearch(t, e, Request{Text: "x y", K: 10, NoText: true})
	if got := paths(resp.Results); !reflect.DeepEqual(got, []string{"c.md", "a.md"}) || resp.Results[0].Text != "" {
		t.Errorf("reranked no-text = %+v", resp.Results)
	}
}

func TestStopWordOnlyQueryFindsNothing(t *testing.T) {
	f := threeChannels()
	resp := mustSearch(t, NewEngine(f), Request{Text: "the and of", K: 10})
	if len(resp.Results) != 0 || resp.Grounded || f.called(ipc.ChannelLexical) != 0 {
		t.Fatalf("results = %+v (lexical called %d times)", resp.Results, f.called(ipc.ChannelLexical))
	}
	if len(resp.Suggestions) == 0 {
		t.Error("no suggestions")
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewEngine(threeChannels()).Search(ctx, Request{Text: "x", K: 3}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
}
