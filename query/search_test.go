package query

import (
	"context"
	"reflect"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/analyze"
)

// fakeIndex serves fixed hits and chunk records; chunks missing from
// records model documents that changed after ranking.
type fakeIndex struct {
	an      *analyze.Analyzer
	hits    []index.Hit
	records map[index.ChunkRef]index.Chunk
	graph   []index.Hit
	terms   []string
	filter  index.Filter
}

func (f *fakeIndex) Analyzer() *analyze.Analyzer { return f.an }

func (f *fakeIndex) Search(terms []string, k int, filter index.Filter) []index.Hit {
	f.terms, f.filter = terms, filter
	var out []index.Hit
	for _, h := range f.hits {
		if filter == nil || filter(h.Vault, h.Path) {
			out = append(out, h)
		}
	}
	if len(out) > k {
		out = out[:k]
	}
	return out
}

func (f *fakeIndex) GraphSearch(terms []string, k int, filter index.Filter) ([]index.Hit, []index.GraphMatch) {
	var out []index.Hit
	for _, h := range f.graph {
		if filter == nil || filter(h.Vault, h.Path) {
			out = append(out, h)
		}
	}
	return out, nil
}

func (f *fakeIndex) Embedded(index.Filter) map[[2]string]bool { return nil }

func (f *fakeIndex) Chunks(refs []index.ChunkRef) ([]index.Chunk, error) {
	out := make([]index.Chunk, len(refs))
	for i, r := range refs {
		if c, ok := f.records[r]; ok {
			c.Ref = r
			out[i] = c
		}
	}
	return out, nil
}

func newFake() *fakeIndex {
	a, b, c := index.ChunkRef{Doc: 1}, index.ChunkRef{Doc: 2}, index.ChunkRef{Doc: 3, Ord: 2}
	return &fakeIndex{
		an: analyze.New(),
		hits: []index.Hit{
			{Ref: a, Vault: "notes", Path: "a.md", Score: 3, LineStart: 1, LineEnd: 2, Heading: []string{"A"}},
			{Ref: b, Vault: "work", Path: "projects/b.md", Score: 2, LineStart: 5, LineEnd: 9},
			{Ref: c, Vault: "notes", Path: "projects/c.md", Score: 1, LineStart: 7, LineEnd: 7},
		},
		records: map[index.ChunkRef]index.Chunk{a: {Text: "alpha"}, c: {Text: "gamma"}},
	}
}

func TestSearchLoadsTextAndDropsVanishedChunks(t *testing.T) {
	f := newFake()
	rs, err := NewEngine(f).Search(context.Background(), Request{Text: "The running gardens", K: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.terms, []string{"run", "garden"}) {
		t.Errorf("terms = %q", f.terms)
	}
	if len(rs) != 2 || rs[0].Text != "alpha" || rs[1].Text != "gamma" || rs[1].LineStart != 7 {
		t.Fatalf("results = %+v", rs)
	}
}

func TestSearchNoTextKeepsCitations(t *testing.T) {
	rs, err := NewEngine(newFake()).Search(context.Background(), Request{Text: "x y", K: 10, NoText: true})
	if err != nil || len(rs) != 3 || rs[0].Text != "" || rs[0].Heading[0] != "A" || rs[1].LineEnd != 9 {
		t.Fatalf("results = %+v, %v", rs, err)
	}
}

func TestScopeIsAppliedInsideRetrieval(t *testing.T) {
	f := newFake()
	e := NewEngine(f)
	rs, _ := e.Search(context.Background(), Request{Text: "x", K: 10, Vaults: []string{"notes"}, PathPrefix: "/projects/", NoText: true})
	if f.filter == nil || len(rs) != 1 || rs[0].Path != "projects/c.md" {
		t.Fatalf("scoped results = %+v", rs)
	}
	rs, _ = e.Search(context.Background(), Request{Text: "x", K: 10, NoText: true})
	if f.filter != nil || len(rs) != 3 {
		t.Fatalf("unscoped: filter set %v, %d results", f.filter != nil, len(rs))
	}
}

func TestStopWordOnlyQueryFindsNothing(t *testing.T) {
	rs, err := NewEngine(newFake()).Search(context.Background(), Request{Text: "the and of", K: 10})
	if err != nil || len(rs) != 0 {
		t.Fatalf("results = %+v, %v", rs, err)
	}
}

func TestGraphChannelIsFusedWithLexical(t *testing.T) {
	f := newFake()
	d := index.ChunkRef{Doc: 4}
	// The graph channel ranks c first and brings d, which BM25 missed.
	f.graph = []index.Hit{
		{Ref: index.ChunkRef{Doc: 3, Ord: 2}, Vault: "notes", Path: "projects/c.md", Score: 1},
		{Ref: d, Vault: "notes", Path: "d.md", Score: 0.5},
	}
	e := NewEngine(f).WithOptions(Options{LexicalWeight: 1, GraphWeight: 1, RRFK: 60, Depth: 10})
	rs, err := e.Search(context.Background(), Request{Text: "x", K: 10, NoText: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, r.Path)
	}
	// c: 1/63 + 1/61 beats a: 1/61; d (graph only, rank 2) beats b (lexical rank 2)? equal weights, tie → first list order.
	want := []string{"projects/c.md", "a.md", "projects/b.md", "d.md"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fused = %v, want %v", got, want)
	}
	// Lexical only: the graph channel is not consulted.
	rs, _ = e.Search(context.Background(), Request{Text: "x", K: 10, NoText: true, Channels: []string{ChannelLexical}})
	if len(rs) != 3 || rs[0].Path != "a.md" || rs[0].Score != 3 {
		t.Fatalf("lexical only = %+v", rs)
	}
}
