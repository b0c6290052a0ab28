package query

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
)

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
	if want := e.Terms("retention policy"); !reflect.DeepEqual(f.terms[ipc.ChannelLexical], want) {
		t.Errorf("lexical terms = %q, want %q (filters stripped)", f.terms[ipc.ChannelLexical], want)
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
	probeFilter(t, "vault AND", f.filters[ipc.ChannelLexical], map[[2]string]bool{
		{"work", "projects/x.md"}: false, {"notes", "projects/a.md"}: false})
	f = scoped()
	mustSearch(t, NewEngine(f), Request{Text: "vault:work vault:notes x", K: 5})
	probeFilter(t, "vaults OR", f.filters[ipc.ChannelLexical], map[[2]string]bool{
		{"work", "projects/x.md"}: true, {"notes", "projects/a.md"}: true, {"other", "projects/a.md"}: false})
	// Several paths are alternatives.
	f = scoped()
	mustSearch(t, NewEngine(f), Request{Text: "path:projects/ path:archive/ x", K: 5})
	probeFilter(t, "paths OR", f.filters[ipc.ChannelLexical], map[[2]string]bool{
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
	probeFilter(t, ipc.ChannelLexical, f.filters[ipc.ChannelLexical], map[[2]string]bool{
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
