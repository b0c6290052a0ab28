package graph_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/indextest"
)

var graphVault = map[string]string{
	"Home.md": "---\ntags: [moc]\n---\n# Home\n\nStart at [[Restic Backups]] and [[ZFS Pool|the pool]].\nAlso [[Missing Note]] and ![[diagram.png]].\n",
	"Restic Backups.md": "---\naliases: [backups]\ntags: [homelab/backup]\n---\n# Restic Backups\n\nSnapshots go to B2. See [[ZFS Pool#Scrubs]].\n\n" +
		"## Retention\n\nKeep 7 daily. #homelab\n\n```\n[[Not A Link]] #notatag\n```\n",
	"ZFS Pool.md":   "# ZFS Pool\n\n## Scrubs\n\nMonthly scrub of tank.\n",
	"notes/Trip.md": "# Trip\n\nPack the list: ![[Packing#Adapters]]\nAnd [read](../Home.md).\n",
	"Packing.md":    "# Packing\n\n## Adapters\n\nA type F plug adapter.\n",
	"Daily.md":      "# Daily\n\nFixed the [[backups]] job; `[[Inline Code]]` is not a link.\n",
}

func syncVault(t *testing.T, s *index.Store, dir string, files map[string]string) {
	t.Helper()
	indextest.SyncMap(t, s, dir, files)
}

func sources(ls []graph.LinkRef) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.Source)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func TestGraphLinksAndBacklinks(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	syncVault(t, s, t.TempDir(), graphVault)

	bl, err := s.Backlinks("", "Restic Backups")
	if err != nil {
		t.Fatal(err)
	}
	// Home links by name, Daily through the alias "backups".
	if got := sources(bl); !reflect.DeepEqual(got, []string{"Daily.md", "Home.md"}) {
		t.Errorf("backlinks = %v", got)
	}
	bl, _ = s.Backlinks("v", "zfs pool.md")
	if got := sources(bl); !reflect.DeepEqual(got, []string{"Home.md", "Restic Backups.md"}) {
		t.Errorf("ZFS backlinks = %v", got)
	}
	for _, l := range bl {
		if l.Source == "Restic Backups.md" && (l.Heading != "Scrubs" || l.Line != 7 || l.Chunk < 0) {
			t.Errorf("heading link = %+v", l)
		}
	}
	// A relative Markdown link resolves from the linking note's folder.
	bl, _ = s.Backlinks("v", "Home")
	if got := sources(bl); !reflect.DeepEqual(got, []string{"notes/Trip.md"}) {
		t.Errorf("Home backlinks = %v", got)
	}
	links, _ := s.Links("v", "Restic Backups")
	var targets []string
	for _, l := range links {
		targets = append(targets, l.Type+":"+l.Target)
	}
	want := []string{"tagged:#homelab/backup", "links_to:zfs pool", "tagged:#homelab"}
	if !reflect.DeepEqual(targets, want) {
		t.Errorf("links = %v, want %v (code blocks must not yield links)", targets, want)
	}
	un := s.Unresolved("v")
	if len(un) != 1 || un[0].Raw != "Missing Note" || un[0].Source != "Home.md" {
		t.Errorf("unresolved = %+v (attachments are not unresolved notes)", un)
	}
	if _, err := s.Backlinks("v", "Nope"); err == nil {
		t.Error("backlinks of a missing note: no error")
	}
	if st := s.GraphStats(); st.Problem != "" || st.Notes != 6 || st.Unresolved != 1 {
		t.Errorf("graph stats = %+v", st)
	}
}

func TestGraphNeighborsAndEntities(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	syncVault(t, s, t.TempDir(), graphVault)
	nb, err := s.Neighbors("v", "ZFS Pool", 1)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range nb {
		names = append(names, e.Path)
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, []string{"Home.md", "Restic Backups.md"}) {
		t.Errorf("neighbors = %v", names)
	}
	nb, _ = s.Neighbors("v", "ZFS Pool", 2)
	found := map[string]int{}
	for _, e := range nb {
		found[e.Key] = e.Hops
	}
	if found["#homelab"] != 2 || found["daily"] != 2 || found["notes/trip"] != 2 {
		t.Errorf("2-hop neighbors = %v", found)
	}
	tags := s.Entities("v", graph.EntityTag)
	var tnames []string
	for _, e := range tags {
		tnames = append(tnames, e.Name)
	}
	sort.Strings(tnames)
	if !reflect.DeepEqual(tnames, []string{"homelab", "homelab/backup", "moc"}) {
		t.Errorf("tags = %v", tnames)
	}
	if nb, err := s.Neighbors("v", "#moc", 1); err != nil || len(nb) != 1 || nb[0].Path != "Home.md" {
		t.Errorf("tag neighbors = %+v, %v", nb, err)
	}
}

func TestGraphFollowsRenamesAndDeletes(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	s := indextest.Open(t, data)
	defer s.Close()
	syncVault(t, s, dir, graphVault)

	// Rename ZFS Pool: links to it become unresolved.
	files := map[string]string{}
	for k, v := range graphVault {
		files[k] = v
	}
	files["Storage.md"] = files["ZFS Pool.md"]
	delete(files, "ZFS Pool.md")
	os.Remove(filepath.Join(dir, "ZFS Pool.md"))
	syncVault(t, s, dir, files)
	var raws []string
	for _, l := range s.Unresolved("v") {
		raws = append(raws, l.Raw)
	}
	sort.Strings(raws)
	if !reflect.DeepEqual(raws, []string{"Missing Note", "ZFS Pool", "ZFS Pool"}) {
		t.Errorf("after rename, unresolved = %v", raws)
	}
	// Give the renamed note its old name as an alias: the links re-resolve.
	files["Storage.md"] = "---\naliases: [ZFS Pool]\n---\n" + files["Storage.md"]
	syncVault(t, s, dir, files)
	bl, err := s.Backlinks("v", "Storage")
	if err != nil || !reflect.DeepEqual(sources(bl), []string{"Home.md", "Restic Backups.md"}) {
		t.Errorf("re-resolved by alias: %v, %v", sources(bl), err)
	}

	// Delete Home: its mentions and relations vanish.
	delete(files, "Home.md")
	os.Remove(filepath.Join(dir, "Home.md"))
	syncVault(t, s, dir, files)
	if bl, _ := s.Backlinks("v", "Restic Backups"); !reflect.DeepEqual(sources(bl), []string{"Daily.md"}) {
		t.Errorf("after delete, backlinks = %v", sources(bl))
	}
	for _, l := range s.Unresolved("v") {
		if l.Source == "Home.md" {
			t.Errorf("deleted note's link still listed: %+v", l)
		}
	}
	if tags := s.Entities("v", graph.EntityTag); len(tags) != 2 {
		t.Errorf("tag of the deleted note still listed: %+v", tags)
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	if st := s.GraphStats(); st.Problem != "" {
		t.Fatal(st.Problem)
	}
	// The graph survives a reopen.
	want := s.Entities("", "")
	s.Close()
	s2 := indextest.Open(t, data)
	defer s2.Close()
	if got := s2.Entities("", ""); !reflect.DeepEqual(got, want) {
		t.Errorf("after reopen entities differ:\n%+v\n%+v", got, want)
	}
}

func TestGraphChannel(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	syncVault(t, s, t.TempDir(), graphVault)
	hits, matches := s.GraphSearch(s.Analyzer().AppendTerms(nil, "what about the zfs pools"), 10, nil)
	if len(matches) != 1 || matches[0].Key != "zfs pool" || matches[0].Terms != 2 {
		t.Fatalf("matches = %+v", matches)
	}
	paths := map[string]bool{}
	for _, h := range hits {
		paths[h.Path] = true
	}
	// The note itself and the chunks that link to it.
	for _, p := range []string{"ZFS Pool.md", "Home.md", "Restic Backups.md"} {
		if !paths[p] {
			t.Errorf("graph hits lack %s: %+v", p, hits)
		}
	}
	if hits[0].Path != "ZFS Pool.md" {
		t.Errorf("best graph hit = %+v", hits[0])
	}
	// Tags are entities too; scope applies inside the channel.
	hits, _ = s.GraphSearch(s.Analyzer().AppendTerms(nil, "homelab"), 10, func(_, p string) bool { return p != "Home.md" })
	if len(hits) == 0 || hits[0].Path != "Restic Backups.md" {
		t.Errorf("tag hits = %+v", hits)
	}
	if hits, _ := s.GraphSearch(s.Analyzer().AppendTerms(nil, "nothing relevant"), 10, nil); len(hits) != 0 {
		t.Errorf("no entity, hits = %+v", hits)
	}
}

func TestEmbeddedNotesAreInScopeOfTheEmbedder(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	syncVault(t, s, t.TempDir(), graphVault)
	emb := s.Embedded(func(_, p string) bool { return strings.HasPrefix(p, "notes/") })
	if !emb[[2]string{"v", "Packing.md"}] || len(emb) != 1 {
		t.Fatalf("embedded = %v", emb)
	}
}
