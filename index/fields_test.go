package index_test

import (
	"reflect"
	"slices"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
)

// notes searches s for text (analysed as queries are) and returns the
// paths of the notes found, best first.
func notes(t *testing.T, s *index.Store, text string) []string {
	t.Helper()
	hits, err := s.SearchNotes(index.LexicalQuery{Text: text, K: 10})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

// Frontmatter values are searchable (string and list properties);
// bookkeeping keys are not.
func TestPropertiesAreSearchable(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	indextest.SyncMap(t, s, t.TempDir(), map[string]string{
		"plan.md":  "---\nstatus: in-progress\nproject: [apollo, gemini]\npublish: true\ncssclasses: wide\n---\n# Plan\n\nThe launch timeline.\n",
		"other.md": "# Other\n\nNothing about launches.\n",
	})
	for _, q := range []string{"progress", "in-progress", "apollo", "gemini"} {
		if got := notes(t, s, q); !reflect.DeepEqual(got, []string{"plan.md"}) {
			t.Errorf("%q found %v, want plan.md", q, got)
		}
	}
	for _, q := range []string{"wide", "publish"} {
		if got := notes(t, s, q); len(got) != 0 {
			t.Errorf("%q (a bookkeeping key or value) found %v", q, got)
		}
	}
}

// A note's folder is a property (FolderProperty): the words of the folder
// it is in find the note (not those of the folders above it), unless the
// configured properties leave the key out.
func TestFolderIsAProperty(t *testing.T) {
	vault := map[string]string{
		"Recipes/Japanese/ramen.md": "# Ramen\n\nSimmer the broth for twelve hours.\n",
		"stock.md":                  "# Stock\n\nSimmer the bones.\n",
	}
	for _, tc := range []struct {
		fields index.Fields
		want   []string
	}{
		{index.Fields{}, []string{"Recipes/Japanese/ramen.md"}},
		{index.Fields{IgnoreProperties: []string{"created"}}, []string{"Recipes/Japanese/ramen.md"}},
		{index.Fields{Properties: []string{"status", "Folder"}}, []string{"Recipes/Japanese/ramen.md"}},
		{index.Fields{Properties: []string{"status"}}, nil},
		{index.Fields{IgnoreProperties: []string{index.FolderProperty}}, nil},
	} {
		s, err := index.Open(index.Options{Dir: t.TempDir(), Fields: tc.fields})
		if err != nil {
			t.Fatal(err)
		}
		indextest.SyncMap(t, s, t.TempDir(), vault)
		if got := notes(t, s, "japanese"); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("fields %+v: %q found %v, want %v", tc.fields, "japanese", got, tc.want)
		}
		if got := notes(t, s, "recipes"); len(got) != 0 {
			t.Errorf("fields %+v: an outer folder's name found %v", tc.fields, got)
		}
		if got := notes(t, s, "simmer"); len(got) != 2 {
			t.Errorf("fields %+v: the body is not searchable: %v", tc.fields, got)
		}
		s.Close()
	}
}

// A note's aliases are read back from the lexical index by id (for the
// reranker); an unknown id has none.
func TestAliasesByDocument(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	indextest.SyncMap(t, s, t.TempDir(), map[string]string{
		"Bookmarks.md": "---\naliases: [Plugins/Starred, Favourites]\n---\n# Bookmarks\n\nKeep the pages you open often.\n",
		"Other.md":     "# Other\n\nPages of another kind.\n",
	})
	hits, err := s.SearchNotes(index.LexicalQuery{Text: "pages", K: 10})
	if err != nil || len(hits) != 2 {
		t.Fatalf("search: %v, %d hits", err, len(hits))
	}
	docs := []index.DocID{hits[0].Doc, hits[1].Doc, 12345}
	want := map[string][]string{"Bookmarks.md": {"Plugins/Starred", "Favourites"}, "Other.md": nil}
	got := s.Aliases(docs)
	for i, h := range hits {
		if !reflect.DeepEqual(got[i], want[h.Path]) {
			t.Errorf("%s: aliases %q, want %q", h.Path, got[i], want[h.Path])
		}
	}
	if got[2] != nil {
		t.Errorf("an unknown document has aliases %q", got[2])
	}
}

// Accents fold: either spelling finds the other.
func TestAccentFoldingFindsBothSpellings(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	indextest.SyncMap(t, s, t.TempDir(), map[string]string{
		"accents.md": "# Trip\n\nA café naïve about München's Straße.\n",
		"plain.md":   "# Plan\n\nThe cafe was naive about Munchen and its strasse.\n",
	})
	for _, q := range []string{"cafe", "café", "naive", "naïve", "munchen", "münchen", "strasse", "straße"} {
		got := notes(t, s, q)
		slices.Sort(got)
		if !reflect.DeepEqual(got, []string{"accents.md", "plain.md"}) {
			t.Errorf("%q found %v, want both notes", q, got)
		}
	}
}

// The words of a link and the sentence around it are a field of the note
// linked to, gone when the linking note drops the link.
func TestAnchorTextFollowsTheLinkingNote(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	dir := t.TempDir()
	indextest.SyncMap(t, s, dir, map[string]string{
		"Espresso.md": "# Espresso\n\nDial in the grind until the shot runs in thirty seconds.\n",
		"Index.md":    "# Index\n\nSee [[Espresso|the quokka brewing guide]] for the morning routine of the zebu.\n",
	})
	got := notes(t, s, "quokka brewing")
	if len(got) < 2 || !slices.Contains(got, "Espresso.md") {
		t.Fatalf("the link's words did not reach its target: %v", got)
	}
	if got := notes(t, s, "zebu"); !slices.Contains(got, "Espresso.md") {
		t.Errorf("the sentence around the link did not reach its target: %v", got)
	}
	indextest.SyncMap(t, s, dir, map[string]string{
		"Espresso.md": "# Espresso\n\nDial in the grind until the shot runs in thirty seconds.\n",
		"Index.md":    "# Index\n\nNothing links anywhere now.\n",
	})
	if got := notes(t, s, "quokka brewing"); len(got) != 0 {
		t.Errorf("anchor text outlived its link: %v", got)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}

// Once the index is quiet after a change, the link targets' keys are
// resolved in the background; searches find the same notes.
func TestAnchorKeysWarmAfterAChange(t *testing.T) {
	warmed := make(chan bool, 16)
	defer index.OnAnchorWarm(0, func(done bool) { warmed <- done })()
	s := indextest.Open(t, t.TempDir())
	dir := t.TempDir()
	files := map[string]string{
		"Espresso.md": "# Espresso\n\nDial in the grind until the shot runs in thirty seconds.\n",
		"Index.md":    "# Index\n\nSee [[Espresso|the quokka brewing guide]] for the morning routine of the zebu.\n",
	}
	indextest.SyncMap(t, s, dir, files)
	for !<-warmed {
	}
	if got := notes(t, s, "quokka brewing"); len(got) < 2 || !slices.Contains(got, "Espresso.md") {
		t.Fatalf("after the warm the link's words did not reach its target: %v", got)
	}
	files["Later.md"] = "# Later\n\nA [[Espresso]] note about the zebu's grinder.\n"
	indextest.SyncMap(t, s, dir, files)
	for !<-warmed {
	}
	if got := notes(t, s, "zebu"); !slices.Contains(got, "Espresso.md") {
		t.Errorf("the sentence around a link did not reach its target after a second warm: %v", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}
