package index_test

import (
	"context"
	"os"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
)

var metaVault = map[string]string{
	"ragd.md":   "---\ntags: [projects/ragd, Homelab]\n---\n# Ragd\n\nThe daemon indexes notes. #todo\n",
	"other.md":  "---\ntags: [projects/other]\n---\n# Other\n\nAnother project about notes.\n",
	"proj.md":   "---\ntags: [proj]\n---\n# Proj\n\nA short tag, not a parent of projects; notes.\n",
	"plain.md":  "# Plain\n\nNo tags on these notes.\n",
	"deep.md":   "# Deep\n\nNested inline tag #area/home/kitchen in notes.\n",
	"failed.md": "  \n",
}

// mtimes of metaVault's files.
var metaTimes = map[string]time.Time{
	"ragd.md":   time.Date(2023, 6, 1, 12, 0, 0, 0, time.UTC),
	"other.md":  time.Date(2024, 1, 15, 9, 30, 0, 0, time.UTC),
	"proj.md":   time.Date(2024, 3, 1, 0, 0, 0, 0, time.UTC),
	"plain.md":  time.Date(2024, 12, 31, 23, 59, 59, 0, time.UTC),
	"deep.md":   time.Date(2025, 2, 2, 2, 2, 2, 0, time.UTC),
	"failed.md": time.Date(2024, 2, 1, 0, 0, 0, 0, time.UTC),
}

// metaStore indexes metaVault with its mtimes set on disk.
func metaStore(t *testing.T, dir string) *index.Store {
	t.Helper()
	vault := t.TempDir()
	files := indextest.WriteVault(t, vault, metaVault)
	for i, f := range files {
		mt := metaTimes[f.Rel]
		if err := os.Chtimes(f.Abs, mt, mt); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(f.Abs)
		if err != nil {
			t.Fatal(err)
		}
		files[i].ModTime = fi.ModTime()
	}
	s := indextest.Open(t, dir)
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v"}, files)
	if err != nil {
		t.Fatal(err)
	}
	if res.Indexed != 5 || res.Failed != 1 {
		t.Fatalf("sync = %+v", res)
	}
	return s
}

// admitted lists the paths of metaVault a filter admits, sorted.
func admitted(f index.Filter) []string {
	var out []string
	for p := range metaVault {
		if f == nil || f("v", p) {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

func TestMetaFilterTags(t *testing.T) {
	s := metaStore(t, t.TempDir())
	defer s.Close()
	if f := s.MetaFilter(nil, time.Time{}, time.Time{}); f != nil {
		t.Error("MetaFilter with no criteria is not nil")
	}
	tests := []struct {
		tags []string
		want []string
	}{
		{[]string{"projects"}, []string{"other.md", "ragd.md"}}, // nested tags match their parent
		{[]string{"projects/ragd"}, []string{"ragd.md"}},
		{[]string{"proj"}, []string{"proj.md"}}, // a prefix of a name is not a parent
		{[]string{"homelab"}, []string{"ragd.md"}},
		{[]string{"HomeLab"}, []string{"ragd.md"}}, // case-insensitive
		{[]string{"#homelab"}, []string{"ragd.md"}},
		{[]string{"todo"}, []string{"ragd.md"}}, // inline tags count
		{[]string{"area/home"}, []string{"deep.md"}},
		{[]string{"area"}, []string{"deep.md"}},
		{[]string{"home"}, nil},                                // not a parent: a middle segment
		{[]string{"projects", "homelab"}, []string{"ragd.md"}}, // every tag must be present
		{[]string{"projects", "proj"}, nil},
		{[]string{"missing"}, nil},
	}
	for _, tc := range tests {
		if got := admitted(s.MetaFilter(tc.tags, time.Time{}, time.Time{})); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("tags %q admit %q, want %q", tc.tags, got, tc.want)
		}
	}
	// Other vaults' notes of the same path are not admitted.
	if f := s.MetaFilter([]string{"projects"}, time.Time{}, time.Time{}); f("w", "ragd.md") {
		t.Error("a note of another vault is admitted")
	}
	// Used inside retrieval: out-of-scope notes do not take k's places.
	terms := s.Analyzer().AppendTerms(nil, "notes")
	var got []string
	for _, h := range s.Search(terms, 10, s.MetaFilter([]string{"projects"}, time.Time{}, time.Time{})) {
		got = append(got, h.Path)
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, []string{"other.md", "ragd.md"}) {
		t.Errorf("filtered search = %q", got)
	}
}

func TestMetaFilterDates(t *testing.T) {
	dir := t.TempDir()
	s := metaStore(t, dir)
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name          string
		after, before time.Time
		want          []string
	}{
		{"after", day(2024, 1, 1), time.Time{}, []string{"deep.md", "other.md", "plain.md", "proj.md"}},
		{"before", time.Time{}, day(2024, 2, 1), []string{"other.md", "ragd.md"}},
		{"range", day(2024, 1, 1), day(2025, 1, 1), []string{"other.md", "plain.md", "proj.md"}},
		{"after is inclusive", day(2024, 3, 1), time.Time{}, []string{"deep.md", "plain.md", "proj.md"}},
		{"before is exclusive", time.Time{}, day(2024, 3, 1), []string{"other.md", "ragd.md"}},
		{"empty range", day(2025, 1, 1), day(2024, 1, 1), nil},
		{"other zone", time.Date(2024, 12, 31, 23, 0, 0, 0, time.FixedZone("x", -3600)), time.Time{}, []string{"deep.md"}},
	}
	check := func(s *index.Store) {
		t.Helper()
		for _, tc := range tests {
			if got := admitted(s.MetaFilter(nil, tc.after, tc.before)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s [%v, %v) admits %q, want %q", tc.name, tc.after, tc.before, got, tc.want)
			}
		}
		// Tags and dates together.
		if got := admitted(s.MetaFilter([]string{"projects"}, day(2024, 1, 1), time.Time{})); !reflect.DeepEqual(got, []string{"other.md"}) {
			t.Errorf("projects after 2024 = %q", got)
		}
	}
	check(s)
	// The same after a reopen (the times come from the stored documents).
	s.Close()
	s = indextest.Open(t, dir)
	defer s.Close()
	check(s)
}

func TestAnd(t *testing.T) {
	a := func(_, p string) bool { return p != "a" }
	b := func(_, p string) bool { return p != "b" }
	if index.And() != nil || index.And(nil, nil) != nil {
		t.Error("And of nothing is not nil")
	}
	if f := index.And(nil, a, nil); f == nil || f("v", "a") || !f("v", "b") {
		t.Error("And of one filter is not that filter")
	}
	f := index.And(a, nil, b)
	for p, want := range map[string]bool{"a": false, "b": false, "c": true} {
		if f("v", p) != want {
			t.Errorf("And(a, b)(%q) = %v", p, !want)
		}
	}
}
