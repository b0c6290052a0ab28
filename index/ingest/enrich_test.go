package ingest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
)

var enrichVault = map[string]string{
	"apollo.md": "# Apollo\n\nNASA launched Apollo 11 in 1969.\n\n## Crew\n\nNeil Armstrong walked on the Moon first.\n",
	"people.md": "# People\n\nArmstrong later taught at the University of Cincinnati.\n",
	"plain.md":  "# Plain\n\nNothing to see.\n",
}

var enrichments = map[string]*graph.Enrichment{
	"apollo.md": {
		Entities: []graph.EnrichedEntity{
			{Name: "NASA", Type: "ORGANIZATION", Aliases: []string{"National Aeronautics and Space Administration"}, Line: 1, Confidence: 0.9},
			// The model reports the excerpt's first line: the mention is two chunks on.
			{Name: "Neil Armstrong", Type: "person", Aliases: []string{"Armstrong"}, Line: 1, Confidence: 0.95},
		},
		Facts: []graph.EnrichedFact{
			{Subject: "Armstrong", Predicate: "flew for", Object: "NASA", Line: 5, Confidence: 0.8},
			{Subject: "Buzz", Predicate: "flew with", Object: "Neil Armstrong", Line: 5, Confidence: 0.8}, // no such entity: dropped
		},
	},
	"people.md": {
		Entities: []graph.EnrichedEntity{
			{Name: "Neil Armstrong", Type: "PERSON", Aliases: []string{"Armstrong"}, Line: 3, Confidence: 0.9},
			{Name: "University of Cincinnati", Type: "ORGANIZATION", Line: 3, Confidence: 0.9},
		},
		Facts: []graph.EnrichedFact{{Subject: "Armstrong", Predicate: "taught at", Object: "University of Cincinnati", Line: 3, Confidence: 0.9}},
	},
}

// fakeEnricher serves enrichments by path, failing for paths in fail.
type fakeEnricher struct {
	mu    sync.Mutex
	by    map[string]*graph.Enrichment
	fail  map[string]bool
	calls map[string]int
}

func (f *fakeEnricher) enrich(rel, _ string, _ []byte) (*graph.Enrichment, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	f.calls[rel]++
	if f.fail[rel] {
		return nil, errors.New("model unreachable")
	}
	return f.by[rel], nil
}

func syncEnrich(t *testing.T, s *index.Store, dir string, files map[string]string, f *fakeEnricher) ingest.SyncResult {
	t.Helper()
	opt := ingest.SyncOptions{Vault: "v"}
	if f != nil {
		opt.Enrich, opt.Enricher = f.enrich, "fake"
	}
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), opt, indextest.WriteVault(t, dir, files))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	return res
}

func entityNames(es []graph.EntityInfo) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Type+":"+e.Name)
	}
	sort.Strings(out)
	return out
}

func graphPaths(s *index.Store, q string) map[string]float64 {
	hits, _ := s.GraphSearch(s.Analyzer().AppendTerms(nil, q), 20, nil)
	out := map[string]float64{}
	for _, h := range hits {
		out[h.Path] = max(out[h.Path], h.Score)
	}
	return out
}

func TestEnrichmentInGraph(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	f := &fakeEnricher{by: enrichments}
	syncEnrich(t, s, t.TempDir(), enrichVault, f)

	person := s.Entities("v", "Person")
	if len(person) != 1 || person[0].Name != "Neil Armstrong" || person[0].Incoming != 2 ||
		!reflect.DeepEqual(person[0].Aliases, []string{"Armstrong"}) || person[0].Key != "@neil armstrong" {
		t.Errorf("persons = %+v", person)
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"organizations", entityNames(s.Entities("", "ORGANIZATION")), []string{"ORGANIZATION:NASA", "ORGANIZATION:University of Cincinnati"}},
		{"notes unchanged", len(s.Entities("v", graph.EntityNote)), 3},
		{"all", len(s.Entities("", "")), 6},
		{"unresolved", len(s.Unresolved("")), 0},
	}
	for _, tc := range tests {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	// The mention of Neil Armstrong lies in the Crew chunk, not at the line
	// the model reported.
	links, _ := s.Links("v", "apollo")
	for _, l := range links {
		if l.Target == "@neil armstrong" && l.Alias == "" && (l.Line != 7 || l.Field != "PERSON" || l.Provenance != graph.ProvenanceModel) {
			t.Errorf("mention = %+v", l.Relation)
		}
	}
	// An alias finds the chunk though the query shares no term with it.
	if got := indextest.Search(t, s, "national aeronautics and space administration"); len(got) != 0 {
		t.Errorf("BM25 found %v", got)
	}
	// One hop along a fact (Armstrong flew for NASA) reaches Armstrong's
	// mention in people.md, decayed.
	got := graphPaths(s, "national aeronautics and space administration")
	if got["apollo.md"] != 0.7 /* a mention's weight in the graph channel */ || got["people.md"] >= got["apollo.md"] || len(got) != 2 {
		t.Errorf("graph hits by alias = %v", got)
	}
	got = graphPaths(s, "university of cincinnati")
	if got["people.md"] == 0 || got["apollo.md"] == 0 || got["apollo.md"] >= got["people.md"] {
		t.Errorf("graph hits by fact = %v", got)
	}
	nb, err := s.Neighbors("v", "@neil armstrong", 1)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range nb {
		keys = append(keys, e.Key)
	}
	sort.Strings(keys)
	if want := []string{"@nasa", "@university of cincinnati", "apollo", "people"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("neighbors = %v, want %v", keys, want)
	}
	st := s.GraphStats()
	if st.Typed != 3 || st.Facts != 2 || st.Problem != "" || st.Unresolved != 0 {
		t.Errorf("stats = %+v", st)
	}
	if d, _ := s.Document("v", "apollo.md"); d == nil || !strings.HasPrefix(d.Pipeline, "chunk") || !strings.HasSuffix(d.Pipeline, "|entities:fake") || strings.Count(d.Pipeline, "|") != 1 || d.EnrichError != "" {
		t.Errorf("document = %+v", d)
	}
}

func TestEnrichmentFollowsEditsAndDeletes(t *testing.T) {
	dir, sdir := t.TempDir(), t.TempDir()
	s := indextest.Open(t, sdir)
	f := &fakeEnricher{by: map[string]*graph.Enrichment{}}
	for k, v := range enrichments {
		f.by[k] = v
	}
	files := map[string]string{}
	for k, v := range enrichVault {
		files[k] = v
	}
	syncEnrich(t, s, dir, files, f)

	// Edit: Apollo loses its crew.
	files["apollo.md"] = "# Apollo\n\nNASA launched Apollo 11 in 1969.\n"
	f.by["apollo.md"] = &graph.Enrichment{Entities: enrichments["apollo.md"].Entities[:1]}
	syncEnrich(t, s, dir, files, f)
	if p := s.Entities("v", "PERSON"); len(p) != 1 || p[0].Incoming != 1 {
		t.Errorf("after edit, persons = %+v", p)
	}
	if st := s.GraphStats(); st.Facts != 1 || st.Typed != 3 {
		t.Errorf("after edit, stats = %+v", st)
	}
	// Delete: Armstrong, his alias and his facts vanish.
	delete(files, "people.md")
	os.Remove(filepath.Join(dir, "people.md"))
	syncEnrich(t, s, dir, files, f)
	if p := s.Entities("", "person"); len(p) != 0 {
		t.Errorf("after delete, persons = %+v", p)
	}
	if got := graphPaths(s, "armstrong"); len(got) != 0 {
		t.Errorf("a deleted entity's alias still finds %v", got)
	}
	if st := s.GraphStats(); st.Facts != 0 || st.Typed != 1 || st.Problem != "" {
		t.Errorf("after delete, stats = %+v", st)
	}
	if _, err := s.Neighbors("", "@Neil Armstrong", 1); err == nil {
		t.Error("neighbors of a vanished entity: no error")
	}
	// The graph survives a reopen.
	want := s.Entities("", "")
	s.Close()
	s = indextest.Open(t, sdir)
	defer s.Close()
	if got := s.Entities("", ""); !reflect.DeepEqual(got, want) {
		t.Errorf("after reopen:\n%+v\nwant\n%+v", got, want)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	// Enrichment turned off: the model's entities go on the next pass.
	syncEnrich(t, s, dir, files, nil)
	if st := s.GraphStats(); st.Typed != 0 || st.Problem != "" {
		t.Errorf("enrichment off, stats = %+v", st)
	}
}

func TestEnrichmentErrorIndexesAndRetries(t *testing.T) {
	dir := t.TempDir()
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	files := map[string]string{"apollo.md": enrichVault["apollo.md"], "empty.md": " \n"}
	f := &fakeEnricher{by: enrichments, fail: map[string]bool{"apollo.md": true}}
	if res := syncEnrich(t, s, dir, files, f); res.Indexed != 1 || res.Failed != 1 {
		t.Fatalf("first pass = %+v", res)
	}
	d, _ := s.Document("v", "apollo.md")
	if d == nil || d.Status != index.StatusOK || d.EnrichError != "model unreachable" || len(indextest.Search(t, s, "launched")) != 1 {
		t.Fatalf("after a failed enrichment: %+v", d)
	}
	if st := s.GraphStats(); st.Typed != 0 {
		t.Errorf("typed entities from a failed enrichment: %+v", st)
	}
	// The next pass retries; the model answers now.
	f.fail = nil
	syncEnrich(t, s, dir, files, f)
	if d, _ := s.Document("v", "apollo.md"); d.EnrichError != "" || f.calls["apollo.md"] != 2 {
		t.Errorf("retry: %+v, calls %v", d, f.calls)
	}
	if p := s.Entities("v", "person"); len(p) != 1 {
		t.Errorf("after retry, persons = %+v", p)
	}
	// Then it is up to date: not enriched again; the empty file never was.
	if res := syncEnrich(t, s, dir, files, f); res.Unchanged != 2 || f.calls["apollo.md"] != 2 || f.calls["empty.md"] != 0 {
		t.Errorf("third pass = %+v, calls %v", res, f.calls)
	}
}

func TestEnrichmentCache(t *testing.T) {
	dir := t.TempDir()
	s := indextest.Open(t, dir)
	const sha = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	if _, ok := ingest.New(s, ingest.Options{}).CachedEnrichment(sha, "llm"); ok {
		t.Fatal("empty cache hit")
	}
	ingest.New(s, ingest.Options{}).CacheEnrichment(sha, "llm", enrichments["people.md"])
	s.Close()
	s = indextest.Open(t, dir)
	defer s.Close()
	if e, ok := ingest.New(s, ingest.Options{}).CachedEnrichment(sha, "llm"); !ok || !reflect.DeepEqual(e, enrichments["people.md"]) {
		t.Errorf("cached = %+v, %v", e, ok)
	}
	if _, ok := ingest.New(s, ingest.Options{}).CachedEnrichment(sha, "other"); ok {
		t.Error("another extractor hit the cache")
	}
}
