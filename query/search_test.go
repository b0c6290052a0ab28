package query

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/analyze"
)

// fakeIndex implements Index over fixed channel lists. Every channel
// honours the filter it is given, as the store does: it returns the first
// k hits of its list that the filter admits. It records each call.
type fakeIndex struct {
	an *analyze.Analyzer

	lex, vec, graph []index.Hit
	vecErr          error

	gone    map[index.ChunkRef]bool // chunks that vanished since ranking
	pages   map[index.ChunkRef]int
	parents map[[2]uint64]index.Parent // {doc, parent ord}

	// meta describes documents for MetaFilter.
	meta     map[[2]string]docMeta
	embedded map[[2]string]bool

	mu        sync.Mutex
	calls     map[string]int
	filters   map[string]index.Filter
	terms     map[string][]string
	ks        map[string]int
	vecSig    string
	vecQ      []float32
	metaTags  []string
	metaAfter time.Time
	metaBef   time.Time
	chunkRefs []index.ChunkRef
}

type docMeta struct {
	tags  []string
	mtime time.Time
}

func newFakeIndex() *fakeIndex {
	return &fakeIndex{an: analyze.New(), calls: map[string]int{}, filters: map[string]index.Filter{},
		terms: map[string][]string{}, ks: map[string]int{}}
}

func (f *fakeIndex) record(ch string, terms []string, k int, filter index.Filter) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[ch]++
	f.filters[ch] = filter
	f.terms[ch] = terms
	f.ks[ch] = k
}

func (f *fakeIndex) called(ch string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[ch]
}

func take(list []index.Hit, k int, filter index.Filter) []index.Hit {
	var out []index.Hit
	for _, h := range list {
		if len(out) == k {
			break
		}
		if filter == nil || filter(h.Vault, h.Path) {
			out = append(out, h)
		}
	}
	return out
}

func (f *fakeIndex) Analyzer() *analyze.Analyzer { return f.an }

func (f *fakeIndex) Search(terms []string, k int, filter index.Filter) []index.Hit {
	f.record(ChannelLexical, terms, k, filter)
	return take(f.lex, k, filter)
}

func (f *fakeIndex) GraphSearch(terms []string, k int, filter index.Filter) ([]index.Hit, []index.GraphMatch) {
	f.record(ChannelGraph, terms, k, filter)
	return take(f.graph, k, filter), nil
}

func (f *fakeIndex) VectorSearch(sig string, q []float32, k int, filter index.Filter) ([]index.Hit, error) {
	f.record(ChannelVector, nil, k, filter)
	f.mu.Lock()
	f.vecSig, f.vecQ = sig, q
	f.mu.Unlock()
	if f.vecErr != nil {
		return nil, f.vecErr
	}
	return take(f.vec, k, filter), nil
}

func (f *fakeIndex) Embedded(inScope index.Filter) map[[2]string]bool {
	f.record("embedded", nil, 0, inScope)
	out := map[[2]string]bool{}
	for k := range f.embedded {
		out[k] = true
	}
	return out
}

func (f *fakeIndex) MetaFilter(tags []string, after, before time.Time) index.Filter {
	f.mu.Lock()
	f.calls["meta"]++
	f.metaTags, f.metaAfter, f.metaBef = tags, after, before
	f.mu.Unlock()
	if len(tags) == 0 && after.IsZero() && before.IsZero() {
		return nil
	}
	return func(vault, path string) bool {
		m, ok := f.meta[[2]string{vault, path}]
		if !ok {
			return false
		}
		for _, t := range tags {
			if !slices.Contains(m.tags, t) {
				return false
			}
		}
		return (after.IsZero() || !m.mtime.Before(after)) && (before.IsZero() || m.mtime.Before(before))
	}
}

func (f *fakeIndex) Chunks(refs []index.ChunkRef) ([]index.Chunk, error) {
	f.mu.Lock()
	f.calls["chunks"]++
	f.chunkRefs = append(f.chunkRefs, refs...)
	f.mu.Unlock()
	out := make([]index.Chunk, len(refs))
	for i, r := range refs {
		if f.gone[r] {
			continue
		}
		out[i] = index.Chunk{Ref: r, Text: "text of " + r.String(), Page: f.pages[r]}
	}
	return out, nil
}

func (f *fakeIndex) Parent(doc index.DocID, ord uint32) (index.Parent, bool, error) {
	p, ok := f.parents[[2]uint64{uint64(doc), uint64(ord)}]
	return p, ok, nil
}

// hit makes a hit on chunk 0 of document doc.
func hit(doc uint64, vault, path string, score float64) index.Hit {
	return index.Hit{Ref: index.ChunkRef{Doc: index.DocID(doc)}, Vault: vault, Path: path, Title: strings.TrimSuffix(path, ".md"),
		LineStart: int(doc), LineEnd: int(doc) + 2, Score: score, Heading: []string{"H" + path}}
}

func refOf(doc uint64) index.ChunkRef { return index.ChunkRef{Doc: index.DocID(doc)} }

// fakeEmbedder returns a fixed query vector or error.
type fakeEmbedder struct {
	sig string
	vec []float32
	err error

	mu    sync.Mutex
	texts []string
}

func (e *fakeEmbedder) Signature() string { return e.sig }

func (e *fakeEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	e.mu.Lock()
	e.texts = append(e.texts, text)
	e.mu.Unlock()
	return e.vec, e.err
}

func (e *fakeEmbedder) calls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.texts)
}

// fakeReranker scores candidates by path (missing paths score 0).
type fakeReranker struct {
	scores map[string]float64
	err    error
	short  bool // return one score too few

	query string
	got   []Candidate
}

func (r *fakeReranker) Rerank(_ context.Context, query string, cands []Candidate) ([]float64, error) {
	r.query, r.got = query, cands
	if r.err != nil {
		return nil, r.err
	}
	out := make([]float64, len(cands))
	for i, c := range cands {
		out[i] = r.scores[c.Path]
	}
	if r.short {
		out = out[1:]
	}
	return out, nil
}

// opts are hybrid options with every channel on at weight 1.
func opts() Options {
	o := DefaultOptions
	o.Weights = map[string]float64{ChannelLexical: 1, ChannelVector: 1, ChannelGraph: 1}
	return o
}

func paths(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Path
	}
	return out
}

func mustSearch(t *testing.T, e *Engine, req Request) *Response {
	t.Helper()
	resp, err := e.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("Search(%+v): %v", req, err)
	}
	return resp
}

// threeChannels is an index where each channel finds something.
func threeChannels() *fakeIndex {
	f := newFakeIndex()
	f.lex = []index.Hit{hit(1, "notes", "a.md", 9), hit(2, "notes", "b.md", 5)}
	f.vec = []index.Hit{hit(3, "notes", "c.md", 0.9), hit(1, "notes", "a.md", 0.5)}
	f.graph = []index.Hit{hit(4, "notes", "d.md", 2)}
	return f
}

func TestModesRunOnlyTheirChannels(t *testing.T) {
	tests := []struct {
		name    string
		opt     Options
		req     Request
		want    []string // channels called
		embeds  int
		results []string
	}{
		{"lexical", opts(), Request{Text: "garden", Mode: ModeLexical}, []string{ChannelLexical}, 0, []string{"a.md", "b.md"}},
		{"vector", opts(), Request{Text: "garden", Mode: ModeVector}, []string{ChannelVector}, 1, []string{"c.md", "a.md"}},
		{"mode written in the query", opts(), Request{Text: "mode:vector garden"}, []string{ChannelVector}, 1, []string{"c.md", "a.md"}},
		{"request mode wins over the query's", opts(), Request{Text: "mode:vector garden", Mode: ModeLexical}, []string{ChannelLexical}, 0, []string{"a.md", "b.md"}},
		{"hybrid, all weights", opts(), Request{Text: "garden"}, []string{ChannelLexical, ChannelVector, ChannelGraph}, 1, nil},
		{"hybrid defaults: vector weight 0", DefaultOptions, Request{Text: "garden"}, []string{ChannelLexical}, 0, []string{"a.md", "b.md"}},
		{"hybrid, request weight 0 for vector", opts(), Request{Text: "garden", Weights: map[string]float64{ChannelVector: 0, ChannelGraph: 0}},
			[]string{ChannelLexical}, 0, []string{"a.md", "b.md"}},
		{"hybrid defaults, request turns graph on", DefaultOptions, Request{Text: "garden", Weights: map[string]float64{ChannelGraph: 0.5}},
			[]string{ChannelLexical, ChannelGraph}, 0, nil},
		{"channels override the mode", opts(), Request{Text: "garden", Mode: ModeLexical, Channels: []string{ChannelGraph}},
			[]string{ChannelGraph}, 0, []string{"d.md"}},
		{"channels run at weight 0", DefaultOptions, Request{Text: "garden", Channels: []string{ChannelVector, ChannelGraph}},
			[]string{ChannelVector, ChannelGraph}, 1, nil},
		{"vector mode at weight 0", DefaultOptions, Request{Text: "garden", Mode: ModeVector}, []string{ChannelVector}, 1, []string{"c.md", "a.md"}},
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
			if tc.results != nil && !reflect.DeepEqual(paths(resp.Results), tc.results) {
				t.Errorf("results %v, want %v", paths(resp.Results), tc.results)
			}
			if tc.embeds > 0 {
				if f.vecSig != "sig-1" || !reflect.DeepEqual(f.vecQ, []float32{1, 0}) || emb.texts[0] != "garden" {
					t.Errorf("vector channel got sig %q q %v for text %q", f.vecSig, f.vecQ, emb.texts[0])
				}
			}
		})
	}
	if _, err := NewEngine(threeChannels()).Search(context.Background(), Request{Text: "x", K: 3, Mode: "fuzzy"}); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestSingleChannelSearchesExactlyK(t *testing.T) {
	f := threeChannels()
	mustSearch(t, NewEngine(f), Request{Text: "garden", K: 7})
	if f.ks[ChannelLexical] != 7 {
		t.Errorf("lexical-only depth = %d, want k", f.ks[ChannelLexical])
	}
	f = threeChannels()
	o := opts()
	o.Depth = 50
	mustSearch(t, NewEngine(f).WithOptions(o).WithEmbedder(&fakeEmbedder{sig: "s"}, nil), Request{Text: "garden", K: 7})
	for _, ch := range channels {
		if f.ks[ch] != 50 {
			t.Errorf("%s fused depth = %d, want Options.Depth", ch, f.ks[ch])
		}
	}
}

// scoped is an index whose best hits in every channel are out of scope.
func scoped() *fakeIndex {
	f := newFakeIndex()
	f.lex = []index.Hit{
		hit(1, "work", "projects/x.md", 20), hit(2, "notes", "archive/y.md", 15),
		hit(3, "notes", "projects/a.md", 8), hit(4, "notes", "projects/b.md", 6), hit(5, "notes", "projects/c.md", 4),
	}
	f.vec = []index.Hit{
		hit(2, "notes", "archive/y.md", 0.95), hit(1, "work", "projects/x.md", 0.9),
		hit(4, "notes", "projects/b.md", 0.7), hit(6, "notes", "projects/d.md", 0.6),
	}
	f.graph = []index.Hit{hit(1, "work", "projects/x.md", 3), hit(5, "notes", "projects/c.md", 1)}
	return f
}

// probeFilter checks that filter admits exactly the paths in want among
// the candidates.
func probeFilter(t *testing.T, name string, filter index.Filter, want map[[2]string]bool) {
	t.Helper()
	if filter == nil {
		t.Errorf("%s: no filter", name)
		return
	}
	for vp, in := range want {
		if filter(vp[0], vp[1]) != in {
			t.Errorf("%s filter(%s, %s) = %v, want %v", name, vp[0], vp[1], !in, in)
		}
	}
}

func TestScopeFilterIsAppliedInsideEveryChannel(t *testing.T) {
	f := scoped()
	e := NewEngine(f).WithOptions(opts()).WithEmbedder(&fakeEmbedder{sig: "s", vec: []float32{1}}, nil)
	resp := mustSearch(t, e, Request{Text: "projects", K: 3, Vaults: []string{"notes"}, PathPrefix: "/projects/"})
	if len(resp.Results) != 3 {
		t.Fatalf("got %d results, want k=3 in scope: %v", len(resp.Results), paths(resp.Results))
	}
	for _, r := range resp.Results {
		if r.Vault != "notes" || !strings.HasPrefix(r.Path, "projects/") {
			t.Errorf("out-of-scope result %s/%s", r.Vault, r.Path)
		}
	}
	want := map[[2]string]bool{
		{"notes", "projects/a.md"}: true, {"notes", "projects/sub/deep.md"}: true,
		{"work", "projects/x.md"}: false, {"notes", "archive/y.md"}: false, {"notes", "projectsx.md"}: false,
	}
	for _, ch := range channels {
		if f.called(ch) != 1 {
			t.Errorf("%s called %d times", ch, f.called(ch))
		}
		probeFilter(t, ch, f.filters[ch], want)
	}

	// Unscoped: no filter at all.
	f = scoped()
	e = NewEngine(f).WithOptions(opts()).WithEmbedder(&fakeEmbedder{sig: "s"}, nil)
	resp = mustSearch(t, e, Request{Text: "projects", K: 3})
	for _, ch := range channels {
		if f.filters[ch] != nil {
			t.Errorf("%s got a filter for an unscoped query", ch)
		}
	}
	if resp.Results[0].Path != "projects/x.md" {
		t.Errorf("unscoped best = %s", resp.Results[0].Path)
	}
}

func TestPlanFiltersReachTheChannels(t *testing.T) {
	f := scoped()
	in := time.Date(2024, 3, 1, 0, 0, 0, 0, time.Local)
	f.meta = map[[2]string]docMeta{
		{"work", "projects/x.md"}:   {[]string{"ragd"}, in},
		{"work", "projects/old.md"}: {[]string{"ragd"}, time.Date(2023, 12, 31, 0, 0, 0, 0, time.Local)},
		{"work", "projects/new.md"}: {[]string{"ragd"}, time.Date(2024, 6, 1, 0, 0, 0, 0, time.Local)},
		{"work", "projects/no.md"}:  {nil, in},
		{"work", "archive/z.md"}:    {[]string{"ragd"}, in},
		{"notes", "projects/a.md"}:  {[]string{"ragd"}, in},
	}
	e := NewEngine(f).WithOptions(opts()).WithEmbedder(&fakeEmbedder{sig: "s", vec: []float32{1}}, nil)
	resp := mustSearch(t, e, Request{Text: "vault:work path:projects/ #ragd after:2024-01 before:2024-06 retention policy", K: 5})
	if f.metaTags == nil || !reflect.DeepEqual(f.metaTags, []string{"ragd"}) ||
		!f.metaAfter.Equal(time.Date(2024, 1, 1, 0, 0, 0, 0, time.Local)) ||
		!f.metaBef.Equal(time.Date(2024, 6, 1, 0, 0, 0, 0, time.Local)) {
		t.Errorf("MetaFilter got tags %q after %v before %v", f.metaTags, f.metaAfter, f.metaBef)
	}
	if want := e.Terms("retention policy"); !reflect.DeepEqual(f.terms[ChannelLexical], want) {
		t.Errorf("lexical terms = %q, want %q (filters stripped)", f.terms[ChannelLexical], want)
	}
	want := map[[2]string]bool{
		{"work", "projects/x.md"}:   true,
		{"work", "projects/old.md"}: false, {"work", "projects/new.md"}: false, // dates
		{"work", "projects/no.md"}: false, // tag
		{"work", "archive/z.md"}:   false, // path
		{"notes", "projects/a.md"}: false, // vault
	}
	for _, ch := range channels {
		probeFilter(t, ch, f.filters[ch], want)
	}
	if !reflect.DeepEqual(paths(resp.Results), []string{"projects/x.md"}) {
		t.Errorf("results = %v", paths(resp.Results))
	}

	// A request vault and a query vault must both admit a note.
	f = scoped()
	mustSearch(t, NewEngine(f), Request{Text: "vault:work x", K: 5, Vaults: []string{"notes"}})
	probeFilter(t, "vault AND", f.filters[ChannelLexical], map[[2]string]bool{
		{"work", "projects/x.md"}: false, {"notes", "projects/a.md"}: false})
	f = scoped()
	mustSearch(t, NewEngine(f), Request{Text: "vault:work vault:notes x", K: 5})
	probeFilter(t, "vaults OR", f.filters[ChannelLexical], map[[2]string]bool{
		{"work", "projects/x.md"}: true, {"notes", "projects/a.md"}: true, {"other", "projects/a.md"}: false})
	// Several paths are alternatives.
	f = scoped()
	mustSearch(t, NewEngine(f), Request{Text: "path:projects/ path:archive/ x", K: 5})
	probeFilter(t, "paths OR", f.filters[ChannelLexical], map[[2]string]bool{
		{"work", "projects/x.md"}: true, {"notes", "archive/y.md"}: true, {"notes", "inbox/y.md"}: false})
}

func TestPathScopeIncludesEmbeddedNotes(t *testing.T) {
	f := scoped()
	f.embedded = map[[2]string]bool{{"notes", "archive/y.md"}: true}
	resp := mustSearch(t, NewEngine(f), Request{Text: "x", K: 10, PathPrefix: "projects/", Vaults: []string{"notes"}})
	if f.called("embedded") != 1 {
		t.Fatal("Embedded not consulted for a path scope")
	}
	probeFilter(t, "embedded", f.filters["embedded"], map[[2]string]bool{
		{"notes", "projects/a.md"}: true, {"notes", "archive/y.md"}: false, {"work", "projects/x.md"}: false})
	probeFilter(t, ChannelLexical, f.filters[ChannelLexical], map[[2]string]bool{
		{"notes", "projects/a.md"}: true, {"notes", "archive/y.md"}: true, {"notes", "inbox/z.md"}: false})
	if got := paths(resp.Results); !slices.Contains(got, "archive/y.md") || slices.Contains(got, "projects/x.md") {
		t.Errorf("results = %v", got)
	}
	// A vault-only scope has no embedded notes to add.
	f = scoped()
	f.embedded = map[[2]string]bool{{"notes", "archive/y.md"}: true}
	mustSearch(t, NewEngine(f), Request{Text: "x", K: 10, Vaults: []string{"notes"}})
	if f.called("embedded") != 0 {
		t.Error("Embedded consulted without a path scope")
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
			o.Weights[ChannelGraph] = 0
			e := NewEngine(f).WithOptions(o)
			if tc.emb != nil || tc.why != nil {
				e = e.WithEmbedder(tc.emb, tc.why)
			}
			resp := mustSearch(t, e, Request{Text: "garden", K: 10})
			if !reflect.DeepEqual(resp.Degraded, []string{ChannelVector}) || len(resp.DegradedWhy) != 1 ||
				!strings.Contains(resp.DegradedWhy[0], tc.want) {
				t.Fatalf("degraded %v why %q, want [vector] with %q", resp.Degraded, resp.DegradedWhy, tc.want)
			}
			// Answered from BM25 alone, as a lexical query would be.
			if !resp.Grounded || !reflect.DeepEqual(paths(resp.Results), lexOnly) || resp.Results[0].Score != 9 {
				t.Errorf("results = %+v", resp.Results)
			}
		})
	}

	// Vector mode without an embedder: nothing, with reasons.
	resp := mustSearch(t, NewEngine(threeChannels()), Request{Text: "garden", K: 10, Mode: ModeVector})
	if len(resp.Results) != 0 || resp.Grounded || !reflect.DeepEqual(resp.Degraded, []string{ChannelVector}) {
		t.Fatalf("vector mode without embedder = %+v", resp)
	}
	joined := strings.Join(resp.Suggestions, "\n")
	if !strings.Contains(joined, "vector channel did not answer") || !strings.Contains(joined, "mode hybrid") {
		t.Errorf("suggestions = %q", resp.Suggestions)
	}
}

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
	if x == nil || !x.HasRerank || x.Reranked != 0.9 || !near(x.Fused, 1/62.0) ||
		!reflect.DeepEqual(x.Channels, []ChannelScore{{ChannelLexical, 2, 5}}) {
		t.Errorf("explain b = %+v", x)
	}
	// c: vector rank 1.
	if x := resp.Results[1].Explain; !reflect.DeepEqual(x.Channels, []ChannelScore{{ChannelVector, 1, 0.9}}) || !near(x.Fused, 1/61.0) {
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
				if r.Score != want.Results[i].Score || r.Explain.HasRerank {
					t.Errorf("result %d = %+v, want fused score %v", i, r, want.Results[i].Score)
				}
			}
			if !reflect.DeepEqual(resp.Degraded, []string{"rerank"}) || !strings.HasPrefix(resp.DegradedWhy[0], "reranker: ") {
				t.Errorf("degraded %v %q", resp.Degraded, resp.DegradedWhy)
			}
		})
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
	if want := e.Terms("running gardens"); !reflect.DeepEqual(f.terms[ChannelLexical], want) || len(want) != 2 {
		t.Errorf("terms = %q", f.terms[ChannelLexical])
	}
	// The vanished chunk is dropped; the others keep text and citation.
	if got := paths(resp.Results); !reflect.DeepEqual(got, []string{"a.md", "c.md"}) {
		t.Fatalf("results = %v", got)
	}
	r := resp.Results[1]
	if r.Text != "text of "+c.Ref.String() || r.Ref != c.Ref || r.LineStart != 3 || r.LineEnd != 5 || r.Title != "c" ||
		r.Vault != "notes" || !reflect.DeepEqual(r.Heading, []string{"Hc.md"}) || r.Score != 1 {
		t.Errorf("c = %+v", r)
	}
	// Parents come from Parent(doc, hit.Parent).
	if p := resp.Results[0].Parent; p == nil || p.LineEnd != 9 {
		t.Errorf("a's parent = %+v", p)
	}
	if p := r.Parent; p == nil || !reflect.DeepEqual(p.Heading, []string{"C", "Sub"}) {
		t.Errorf("c's parent = %+v", p)
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
	if len(resp.Results) != 0 || resp.Grounded || f.called(ChannelLexical) != 0 {
		t.Fatalf("results = %+v (lexical called %d times)", resp.Results, f.called(ChannelLexical))
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
