package query

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
)

func hasSuggestion(resp *Response, sub string) bool {
	for _, s := range resp.Suggestions {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// notGrounded checks an answer that found candidates but no evidence.
func notGrounded(t *testing.T, name string, resp *Response) {
	t.Helper()
	if resp.Grounded || len(resp.Results) != 0 || len(resp.Suggestions) == 0 {
		t.Errorf("%s: grounded %v, %d results, suggestions %q; want ungrounded, none, some",
			name, resp.Grounded, len(resp.Results), resp.Suggestions)
	}
}

func TestSafetyFloor(t *testing.T) {
	emb := &fakeEmbedder{sig: "s", vec: []float32{1}}
	lexical := func(min float64) *Engine {
		o := DefaultOptions
		o.MinBM25 = min
		return NewEngine(threeChannels()).WithOptions(o)
	}

	// BM25 scores are 9 and 5: the floor applies to each note.
	if resp := mustSearch(t, lexical(9), Request{Text: "garden", K: 5}); !resp.Grounded || !reflect.DeepEqual(paths(resp.Results), []string{"a.md"}) || len(resp.Suggestions) != 0 {
		t.Errorf("at the floor: %+v", resp)
	}
	resp := mustSearch(t, lexical(9.5), Request{Text: "garden", K: 5})
	notGrounded(t, "under MinBM25", resp)
	if !hasSuggestion(resp, "other keywords") || hasSuggestion(resp, "widen the scope") {
		t.Errorf("unscoped suggestions = %q", resp.Suggestions)
	}

	// A filtered query below the floor suggests widening the scope.
	for name, req := range map[string]Request{
		"request vault": {Text: "garden", K: 5, Vaults: []string{"notes"}},
		"request path":  {Text: "garden", K: 5, PathPrefix: "a"},
		"query path":    {Text: "path:a garden", K: 5},
		"query vault":   {Text: "vault:notes garden", K: 5},
	} {
		resp := mustSearch(t, lexical(50), req)
		notGrounded(t, name, resp)
		if !hasSuggestion(resp, "widen the scope") {
			t.Errorf("%s: suggestions %q do not mention widening the scope", name, resp.Suggestions)
		}
	}
	// A filter that leaves nothing also says so.
	resp = mustSearch(t, lexical(0), Request{Text: "garden", K: 5, Vaults: []string{"elsewhere"}})
	notGrounded(t, "empty scope", resp)
	if !hasSuggestion(resp, "widen the scope") {
		t.Errorf("empty scope suggestions = %q", resp.Suggestions)
	}
	// Ignored filters are reported.
	resp = mustSearch(t, lexical(50), Request{Text: "after:someday garden", K: 5})
	if !hasSuggestion(resp, "query filter ignored: after:someday") {
		t.Errorf("suggestions = %q", resp.Suggestions)
	}

	// MinSimilarity: vector similarities are 0.9 and 0.5.
	vector := func(min float64) *Engine {
		o := DefaultOptions
		o.MinSimilarity = min
		return NewEngine(threeChannels()).WithOptions(o).WithEmbedder(emb, nil)
	}
	if resp := mustSearch(t, vector(0.9), Request{Text: "garden", K: 5, Mode: ipc.ModeVector}); !resp.Grounded || !reflect.DeepEqual(paths(resp.Results), []string{"c.md"}) {
		t.Errorf("similarity at the floor: %+v", resp)
	}
	resp = mustSearch(t, vector(0.95), Request{Text: "garden", K: 5, Mode: ipc.ModeVector})
	notGrounded(t, "under MinSimilarity", resp)
	if !hasSuggestion(resp, "mode hybrid") {
		t.Errorf("vector-mode suggestions = %q", resp.Suggestions)
	}

	// Hybrid: either channel's evidence grounds a note; notes with none
	// above a floor are cut.
	hybrid := func(minBM25, minSim float64) *Response {
		o := opts()
		o.Weights[ipc.ChannelGraph] = 0
		o.MinBM25, o.MinSimilarity = minBM25, minSim
		return mustSearch(t, NewEngine(threeChannels()).WithOptions(o).WithEmbedder(emb, nil), Request{Text: "garden", K: 5})
	}
	if r := hybrid(50, 0.5); !r.Grounded || !reflect.DeepEqual(paths(r.Results), []string{"a.md", "c.md"}) {
		t.Errorf("vector evidence only: %+v", r)
	}
	if r := hybrid(5, 0.99); !r.Grounded || !reflect.DeepEqual(paths(r.Results), []string{"a.md", "b.md"}) {
		t.Errorf("lexical evidence only: %+v", r)
	}
	notGrounded(t, "neither", hybrid(50, 0.99))

	// An exact entity match in the graph channel is evidence in itself.
	o := opts()
	o.MinBM25, o.MinSimilarity = 50, 0.99
	resp = mustSearch(t, NewEngine(threeChannels()).WithOptions(o).WithEmbedder(emb, nil), Request{Text: "garden", K: 5})
	if !resp.Grounded || !reflect.DeepEqual(paths(resp.Results), []string{"d.md"}) {
		t.Errorf("graph match: %+v", resp)
	}
}

func TestDenoiseAlpha(t *testing.T) {
	f := newFakeIndex()
	f.lex = []index.Hit{hit(1, "v", "a.md", 10), hit(2, "v", "b.md", 6), hit(3, "v", "c.md", 5), hit(4, "v", "d.md", 4.99), hit(5, "v", "e.md", 1)}
	for alpha, want := range map[float64][]string{
		0:   {"a.md", "b.md", "c.md", "d.md", "e.md"},
		0.5: {"a.md", "b.md", "c.md"}, // 5 = 0.5 × 10 is kept, 4.99 is not
		0.7: {"a.md"},
		1:   {"a.md"},
	} {
		o := DefaultOptions
		o.Alpha = alpha
		resp := mustSearch(t, NewEngine(f).WithOptions(o), Request{Text: "x", K: 10})
		if got := paths(resp.Results); !reflect.DeepEqual(got, want) || !resp.Grounded {
			t.Errorf("alpha %v: %v, want %v", alpha, got, want)
		}
	}
	// After a rerank the reranker's scores decide.
	o := DefaultOptions
	o.Alpha = 0.5
	rr := &fakeReranker{scores: map[string]float64{"a.md": 1, "b.md": 4, "c.md": 2.5, "d.md": 1.9, "e.md": 3}}
	resp := mustSearch(t, NewEngine(f).WithOptions(o).WithReranker(rr), Request{Text: "x", K: 10})
	if got := paths(resp.Results); !reflect.DeepEqual(got, []string{"b.md", "e.md", "c.md"}) {
		t.Errorf("alpha after rerank = %v", got)
	}
	// Non-positive best scores are left alone.
	rr.scores = map[string]float64{"a.md": -1, "b.md": -2, "c.md": -3, "d.md": -4, "e.md": -5}
	resp = mustSearch(t, NewEngine(f).WithOptions(o).WithReranker(rr), Request{Text: "x", K: 10})
	if len(resp.Results) != 5 {
		t.Errorf("alpha with negative reranker scores kept %v", paths(resp.Results))
	}
}

// Calibrate measures the floor as the best similarity of meaningless
// probes plus a margin; it applies when MinSimilarity is unset, and a
// configured MinSimilarity wins over it. It is measured again only when
// the space grew or shrank by a hundredth.
func TestCalibratedSimilarityFloor(t *testing.T) {
	f := threeChannels() // vector best is 0.9
	emb := &fakeEmbedder{sig: "s", vec: []float32{1}}
	e := NewEngine(f).WithEmbedder(emb, nil)
	search := func(e *Engine) *Response {
		return mustSearch(t, e, Request{Text: "garden", K: 5, Mode: ipc.ModeVector})
	}
	if fl, measured, err := e.Calibrate(context.Background(), f); err != nil || measured || fl != 0 {
		t.Fatalf("calibrated without vectors: %v %v %v", fl, measured, err)
	}
	// The probes' nearest chunk reaches 0.5.
	f.stats = index.VectorStats{Active: "s", Vectors: 100}
	vec := f.vec
	f.vec = []index.Hit{hit(9, "notes", "z.md", 0.5)}
	fl, measured, err := e.Calibrate(context.Background(), f)
	if err != nil || !measured || !near(fl, 0.5+calibrationMargin) || !near(e.SimilarityFloor(), fl) {
		t.Fatalf("Calibrate = %v %v %v, floor %v", fl, measured, err, e.SimilarityFloor())
	}
	if n := emb.calls(); n != len(calibrationProbes) {
		t.Errorf("embedded %d probes, want %d", n, len(calibrationProbes))
	}
	f.vec = vec
	if r := search(e); !r.Grounded {
		t.Errorf("above the calibrated floor: %+v", r)
	}
	// Probes now reach 0.93: not measured again until the space changes
	// by a hundredth.
	f.vec = []index.Hit{hit(9, "notes", "z.md", 0.93)}
	f.stats.Vectors = 100
	if _, measured, _ := e.Calibrate(context.Background(), f); measured {
		t.Error("measured again without a change")
	}
	f.stats.Vectors = 101
	if fl, measured, _ := e.Calibrate(context.Background(), f); !measured || !near(fl, 0.93+calibrationMargin) {
		t.Errorf("not measured again after growing by a hundredth: %v %v", fl, measured)
	}
	f.vec = vec
	notGrounded(t, "under the calibrated floor", search(e))
	o := DefaultOptions
	o.MinSimilarity = 0.5
	if r := search(e.WithOptions(o)); !r.Grounded {
		t.Errorf("configured MinSimilarity should override the calibration: %+v", r)
	}
}
