package heuristic

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/plugins"
)

var ctx = context.Background()

var day = time.Date(2024, 5, 1, 0, 0, 0, 0, time.UTC)

func approx(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestRerank(t *testing.T) {
	type cand = plugins.Candidate
	for _, tc := range []struct {
		name  string
		opts  plugins.Options
		query string
		cands []cand
		want  []float64
	}{
		{
			name:  "normalised fused score only",
			query: "zebra",
			cands: []cand{{Path: "a.md", Score: 0.5}, {Path: "b.md", Score: 1.5}, {Path: "c.md", Score: 1}},
			want:  []float64{0, 1, 0.5},
		},
		{
			name:  "equal scores all normalise to 1",
			query: "zebra",
			cands: []cand{{Path: "a.md", Score: 2}, {Path: "b.md", Score: 2}},
			want:  []float64{1, 1},
		},
		{
			name:  "heading and title bonus by term coverage, stemmed, stop words dropped",
			query: "the indexing of notes",
			cands: []cand{
				{Path: "a.md", Score: 1, Heading: "Setup > Index"},           // 1/2 heading
				{Path: "b.md", Score: 1, Title: "Notes and indexes"},         // 2/2 title
				{Path: "c.md", Score: 1, Heading: "Notes", Title: "Index"},   // 1/2 + 1/2
				{Path: "dir/notes.md", Score: 1},                             // title from file name: 1/2
				{Path: "e.md", Score: 1, Heading: "Other", Title: "Nothing"}, // none
			},
			want: []float64{1 + 0.2*0.5, 1 + 0.15, 1 + 0.2*0.5 + 0.15*0.5, 1 + 0.15*0.5, 1},
		},
		{
			name:  "an alias counts as a title when it holds more of the query",
			query: "the old starred plugin page",
			cands: []cand{
				{Path: "a.md", Score: 1, Title: "Bookmarks", Aliases: []string{"Plugins/Starred", "Starred"}}, // 2/4 by an alias
				{Path: "b.md", Score: 1, Title: "Old pages", Aliases: []string{"Plugin"}},                     // 2/4 title beats 1/4 alias
				{Path: "c.md", Score: 1, Title: "Bookmarks"},                                                  // none
			},
			want: []float64{1 + 0.15*0.5, 1 + 0.15*0.5, 1},
		},
		{
			name:  "diversity penalises later chunks of a file in fused order",
			query: "zebra",
			cands: []cand{
				{Path: "a.md", Vault: "v", Score: 3},
				{Path: "a.md", Vault: "v", Score: 1}, // 3rd of a.md by score
				{Path: "b.md", Vault: "v", Score: 2},
				{Path: "a.md", Vault: "v", Score: 2}, // 2nd of a.md
				{Path: "a.md", Vault: "w", Score: 1}, // other vault: another file
			},
			want: []float64{1, 0 - 0.2, 0.5, 0.5 - 0.1, 0},
		},
		{
			name:  "diversity ties broken by ID, not position",
			query: "zebra",
			cands: []cand{{ID: "c", Path: "a.md", Score: 1}, {ID: "a", Path: "a.md", Score: 1}, {ID: "b", Path: "a.md", Score: 1}},
			want:  []float64{0.8, 1, 0.9},
		},
		{
			name:  "recency breaks ties only",
			query: "zebra",
			cands: []cand{
				{Path: "a.md", Score: 1, Modified: day},
				{Path: "b.md", Score: 1, Modified: day.Add(48 * time.Hour)},
				{Path: "c.md", Score: 1, Modified: day.Add(24 * time.Hour)},
				{Path: "d.md", Score: 1},
			},
			want: []float64{1, 1 + 1e-6, 1 + 0.5e-6, 1},
		},
		{
			name:  "recency in whole seconds, the epoch unset, as the plugin protocol carries them",
			query: "zebra",
			cands: []cand{
				{Path: "a.md", Score: 1, Modified: day.Add(100 * time.Millisecond)},
				{Path: "b.md", Score: 1, Modified: day.Add(900 * time.Millisecond)},
				{Path: "c.md", Score: 1, Modified: day.Add(2 * time.Second)},
				{Path: "d.md", Score: 1, Modified: time.Unix(0, 0)},
			},
			want: []float64{1, 1, 1 + 1e-6, 1},
		},
		{
			name:  "weights from options",
			opts:  plugins.Options{"heading_weight": 1.0, "title_weight": 0, "diversity_penalty": 0.5, "recency_weight": 0},
			query: "zebra stripes",
			cands: []cand{
				{Path: "a.md", Score: 10, Heading: "Zebra", Title: "Zebra stripes"},
				{Path: "a.md", Score: 0, Modified: day},
			},
			want: []float64{1 + 0.5, 0 - 0.5},
		},
		{
			name:  "non-finite fused scores count as the minimum",
			query: "zebra",
			cands: []cand{{Path: "a.md", Score: math.NaN()}, {Path: "b.md", Score: 4}, {Path: "c.md", Score: 2}},
			want:  []float64{0, 1, 0},
		},
		{
			name:  "query of stop words: no bonus",
			query: "the of and",
			cands: []cand{{Path: "the.md", Score: 1, Heading: "The and of"}},
			want:  []float64{1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			if tc.opts != nil {
				if err := r.Configure(ctx, tc.opts); err != nil {
					t.Fatal(err)
				}
			}
			got, err := r.Rerank(ctx, tc.query, tc.cands)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d scores, want %d", len(got), len(tc.want))
			}
			for i := range got {
				if !approx(got[i], tc.want[i]) {
					t.Errorf("score %d = %.9g, want %.9g", i, got[i], tc.want[i])
				}
			}
			again, _ := r.Rerank(ctx, tc.query, tc.cands)
			for i := range got {
				if got[i] != again[i] && !(math.IsNaN(got[i]) && math.IsNaN(again[i])) {
					t.Fatalf("not deterministic at %d: %v then %v", i, got[i], again[i])
				}
			}
		})
	}
}

func TestEmptyAndInfo(t *testing.T) {
	r := New()
	got, err := r.Rerank(ctx, "q", nil)
	if err != nil || len(got) != 0 {
		t.Errorf("empty list: %v, %v", got, err)
	}
	info, err := r.RerankerInfo(ctx)
	if err != nil || info.Name != "heuristic" || info.Model != "" {
		t.Errorf("info %+v, %v", info, err)
	}
}

func TestConfigureErrors(t *testing.T) {
	for _, tc := range []struct {
		opts plugins.Options
		want string
	}{
		{plugins.Options{"title_boost": 0.1}, `unknown option "title_boost"`},
		{plugins.Options{"heading_weight": "high"}, `option "heading_weight": cannot use string "high" as a number`},
		{plugins.Options{"diversity_penalty": -1.0}, `option "diversity_penalty": -1 is negative`},
	} {
		err := New().Configure(ctx, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.opts, err, tc.want)
		}
	}
}
