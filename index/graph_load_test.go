package index_test

import (
	"os"
	"reflect"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
)

// graphVault links, aliases and tags notes across folders.
var graphVault = map[string]string{
	"Home.md":           "---\ntags: [moc]\n---\n# Home\n\nStart at [[Restic Backups]] and [[ZFS Pool|the pool]].\nAlso [[Missing Note]].\n",
	"Restic Backups.md": "---\naliases: [backups]\n---\n# Restic Backups\n\nSnapshots go to B2. See [[ZFS Pool#Scrubs]]. #homelab\n",
	"ZFS Pool.md":       "# ZFS Pool\n\n## Scrubs\n\nMonthly scrub of tank.\n",
	"notes/Daily.md":    "# Daily\n\nFixed the [[backups]] job, read [home](../Home.md).\n",
}

type graphView struct {
	Backlinks, Unresolved int
	Entities              []string
	Stats                 any
	Search                []index.Hit
}

func viewGraph(t *testing.T, s *index.Store) graphView {
	t.Helper()
	bl, err := s.Backlinks("", "Restic Backups")
	if err != nil {
		t.Fatal(err)
	}
	var ents []string
	for _, e := range s.Entities("", "") {
		ents = append(ents, e.Key)
	}
	// "backups" is an anchor of Daily's link: lexical search resolves it.
	hits := s.Search(s.Analyzer().AppendTerms(nil, "backups job snapshots"), 10, nil)
	return graphView{Backlinks: len(bl), Unresolved: len(s.Unresolved("")), Entities: ents,
		Stats: s.GraphStats(), Search: hits}
}

// The graph loaded after a reopen — names first, then relations — is the
// graph the writes built, also from a store written before the names or
// the stats beside the paths were kept.
func TestGraphLoadedAtReopen(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		data := t.TempDir()
		s := indextest.Open(t, data)
		files := indextest.WriteVault(t, t.TempDir(), graphVault)
		indextest.Sync(t, s, "v", files)
		want := viewGraph(t, s)
		if want.Backlinks != 2 || want.Unresolved != 1 {
			t.Fatalf("graph as written: %+v", want)
		}
		if legacy {
			if err := s.DropNamesRecords(); err != nil {
				t.Fatal(err)
			}
			if err := s.DropPathStats(); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()

		s = indextest.Open(t, data)
		select {
		case <-s.GraphLoaded():
			if !legacy {
				t.Error("the relations loaded before anything wanted them")
			}
		default:
		}
		if got := viewGraph(t, s); !reflect.DeepEqual(got, want) {
			t.Errorf("legacy %v, after reopen:\n got %+v\nwant %+v", legacy, got, want)
		}
		if legacy {
			// The first pass keeps the stat beside the path again.
			if res := indextest.Sync(t, s, "v", indextest.Restat(t, files)); res.Unchanged != len(files) {
				t.Errorf("pass after reopen: %+v", res)
			}
		}
		if err := s.Check(); err != nil {
			t.Errorf("legacy %v: consistency check: %v", legacy, err)
		}
		s.Close()
	}
}

// Closing the store writes the names snapshot; at the next open, while the
// graph's names are still being loaded, lexical search resolves link
// targets from it and finds what it found before (here the load is held
// until the search has answered). A snapshot of another change, or a
// damaged one, is not used.
func TestNamesSnapshotServesAtOpen(t *testing.T) {
	data := t.TempDir()
	s := indextest.Open(t, data)
	files := indextest.WriteVault(t, t.TempDir(), graphVault)
	indextest.Sync(t, s, "v", files)
	want := viewGraph(t, s)
	s.Close()

	release := index.HoldNamesLoad()
	s = indextest.Open(t, data)
	if !s.NamesSnapshotServes() {
		release()
		t.Fatal("no names snapshot serves after a clean close")
	}
	hits := s.Search(s.Analyzer().AppendTerms(nil, "backups job snapshots"), 10, nil)
	release()
	if !reflect.DeepEqual(hits, want.Search) {
		t.Errorf("search from the names snapshot:\n got %+v\nwant %+v", hits, want.Search)
	}
	if got := viewGraph(t, s); !reflect.DeepEqual(got, want) {
		t.Errorf("after the names loaded:\n got %+v\nwant %+v", got, want)
	}
	if s.NamesSnapshotServes() {
		t.Error("the names snapshot still serves after the names loaded")
	}
	if diff, found, err := s.NamesSnapshotAgrees(); err != nil || !found || len(diff) > 0 {
		t.Errorf("snapshot against the graph: found %v, differ %v, %v", found, diff, err)
	}
	// A change (the vault now holds this note alone): the snapshot on
	// disk is of the change before.
	indextest.SyncMap(t, s, t.TempDir(), map[string]string{"Other.md": "# Other\n\nA quokka at [[Home]].\n"})
	if _, found, err := s.NamesSnapshotAgrees(); err != nil || found {
		t.Errorf("a snapshot of another change was read (%v)", err)
	}
	s.Close()

	// A damaged snapshot is dropped and the names load as before.
	b, err := os.ReadFile(s.NamesPath())
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0xff
	if err := os.WriteFile(s.NamesPath(), b, 0o600); err != nil {
		t.Fatal(err)
	}
	s = indextest.Open(t, data)
	defer s.Close()
	if s.NamesSnapshotServes() {
		t.Error("a damaged names snapshot serves")
	}
	if _, err := os.Stat(s.NamesPath()); !os.IsNotExist(err) {
		t.Errorf("the damaged names snapshot is kept: %v", err)
	}
	if got := indextest.Search(t, s, "quokka"); len(got) != 1 {
		t.Errorf("search after a damaged snapshot: %v", got)
	}
}
