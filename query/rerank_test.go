package query

import (
	"context"
	"slices"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
)

// metaReranker scores from metadata alone.
type metaReranker struct{ fakeReranker }

func (*metaReranker) MetadataOnly() bool { return true }

// A reranker that reads only metadata gets no text, and text is loaded
// only for the results returned; one that reads text gets it.
func TestRerankTextOnlyWhenNeeded(t *testing.T) {
	for _, tc := range []struct {
		name     string
		r        Reranker
		wantText bool
	}{
		{"metadata only", &metaReranker{fakeReranker{scores: map[string]float64{"b.md": 2, "a.md": 1}}}, false},
		{"reads text", &fakeReranker{scores: map[string]float64{"b.md": 2, "a.md": 1}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := threeChannels()
			o := opts()
			o.Weights[ipc.ChannelVector], o.Weights[ipc.ChannelGraph] = 0, 0
			e := NewEngine(f).WithOptions(o).WithReranker(tc.r)
			resp, err := e.Search(context.Background(), Request{Text: "garden", K: 1})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Results) != 1 || resp.Results[0].Path != "b.md" {
				t.Fatalf("results = %+v", resp.Results)
			}
			var got []Candidate
			switch r := tc.r.(type) {
			case *metaReranker:
				got = r.got
			case *fakeReranker:
				got = r.got
			}
			if len(got) != 2 || (got[0].Text != "") != tc.wantText {
				t.Errorf("reranker saw %+v", got)
			}
			if resp.Results[0].Text == "" {
				t.Error("the result has no text")
			}
			if f.calls["chunks"] != 1 {
				t.Errorf("chunk text loaded %d times, want once", f.calls["chunks"])
			}
		})
	}
}

// The reranker's candidates carry their notes' aliases.
func TestRerankCandidatesCarryAliases(t *testing.T) {
	f := threeChannels()
	o := opts()
	o.Weights[ipc.ChannelVector], o.Weights[ipc.ChannelGraph] = 0, 0
	r := &fakeReranker{scores: map[string]float64{"b.md": 2, "a.md": 1}}
	e := NewEngine(f).WithOptions(o).WithReranker(r)
	f.aliases = map[index.DocID][]string{}
	for _, h := range f.lex {
		if h.Path == "b.md" {
			f.aliases[h.Ref.Doc] = []string{"Plot", "Beds"}
		}
	}
	if _, err := e.Search(context.Background(), Request{Text: "garden", K: 2}); err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, c := range r.got {
		want := []string(nil)
		if c.Path == "b.md" {
			want, seen = []string{"Plot", "Beds"}, seen+1
		}
		if !slices.Equal(c.Aliases, want) {
			t.Errorf("candidate %s has aliases %q, want %q", c.Path, c.Aliases, want)
		}
	}
	if seen == 0 {
		t.Fatalf("b.md was not a candidate: %+v", r.got)
	}
}
