package vaultgen

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

func testSource(t *testing.T) *Source {
	t.Helper()
	src, err := LoadSource(filepath.Join("testdata", "hub"), filepath.Join("testdata", "corpus.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestLoadSource(t *testing.T) {
	src := testSource(t)
	if src.Notes != 3 {
		t.Errorf("%d source notes, want 3 (.obsidian skipped)", src.Notes)
	}
	titles := slices.Sorted(slices.Values(src.Titles))
	want := []string{"Daily notes", "Dataview", "Sleep deprivation and memory consolidation in adults", "Templates", "Vitamin D calcium fracture risk review"}
	if !slices.Equal(titles, want) {
		t.Errorf("titles %q, want %q", titles, want)
	}
	if want := []string{"Daily notes", "Dataview", "Install it", "Queries and views", "Settings", "Templates", "Variables you can use"}; !slices.Equal(slices.Sorted(slices.Values(src.Headings)), want) {
		t.Errorf("headings %q, want %q", src.Headings, want)
	}
	for _, p := range src.Paragraphs {
		if strings.Contains(p, "[[") || strings.Contains(p, "](") || strings.Contains(p, "```") || strings.Contains(p, "|---") || strings.Contains(p, "TABLE") {
			t.Errorf("paragraph keeps a link, code or a table: %q", p)
		}
	}
	if !slices.Contains(src.Paragraphs, "Dataview treats your vault as a database you can query with a small language, listing notes by tag or by field.") {
		t.Errorf("links not flattened to their text: %q", src.Paragraphs)
	}
	if want := []string{"concept", "plugin/query", "seedling"}; !slices.Equal(src.Tags, want) {
		t.Errorf("tags %q, want %q", src.Tags, want)
	}
	if len(src.Abstracts) != 2 {
		t.Errorf("%d abstracts, want 2 (the short one left out)", len(src.Abstracts))
	}
	if _, err := LoadSource(t.TempDir(), filepath.Join("testdata", "corpus.jsonl")); err == nil {
		t.Error("an empty source vault was accepted")
	}
}

// treeHash hashes every file's path and content under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		h.Write([]byte(rel + "\x00"))
		h.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

var linkRe = regexp.MustCompile(`\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]`)

func TestGenerate(t *testing.T) {
	src := testSource(t)
	opt := Options{Notes: 300, Seed: 7}
	a := filepath.Join(t.TempDir(), "a")
	m, err := Generate(a, src, opt)
	if err != nil {
		t.Fatal(err)
	}
	if m.Notes != 300 || m.Folders < 2 || m.Links == 0 || m.Version != Version {
		t.Errorf("manifest %+v", m)
	}
	// Deterministic: the same seed gives the same bytes, another seed not.
	b := filepath.Join(t.TempDir(), "b")
	if _, err := Generate(b, src, opt); err != nil {
		t.Fatal(err)
	}
	if treeHash(t, a) != treeHash(t, b) {
		t.Error("two vaults from the same seed differ")
	}
	c := filepath.Join(t.TempDir(), "c")
	if _, err := Generate(c, src, Options{Notes: 300, Seed: 8}); err != nil {
		t.Fatal(err)
	}
	if treeHash(t, a) == treeHash(t, c) {
		t.Error("two seeds gave the same vault")
	}
	if _, err := Generate(a, src, opt); err == nil {
		t.Error("generated over an existing directory")
	}

	// Notes: frontmatter that parses, a title heading, links that resolve
	// to generated notes, folders at most four deep.
	titles := map[string]bool{}
	var notes []string
	var total int64
	filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			notes = append(notes, p)
			titles[strings.TrimSuffix(d.Name(), ".md")] = true
			rel, _ := filepath.Rel(a, p)
			if depth := strings.Count(filepath.ToSlash(rel), "/"); depth > 4 {
				t.Errorf("%s is %d folders deep", rel, depth)
			}
		}
		return nil
	})
	if len(notes) != 300 || len(titles) != 300 {
		t.Fatalf("%d notes with %d distinct titles, want 300", len(notes), len(titles))
	}
	frontmatter, links := 0, 0
	for _, p := range notes {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		total += int64(len(b))
		text := string(b)
		if rest, ok := strings.CutPrefix(text, "---\n"); ok {
			fm, _, ok := strings.Cut(rest, "\n---\n")
			var v map[string]any
			if err := yaml.Unmarshal([]byte(fm), &v); !ok || err != nil || v["tags"] == nil {
				t.Errorf("%s: frontmatter %q: %v", p, fm, err)
			}
			frontmatter++
		}
		title := strings.TrimSuffix(filepath.Base(p), ".md")
		if !strings.Contains(text, "\n# "+title+"\n") && !strings.HasPrefix(text, "# "+title+"\n") {
			t.Errorf("%s: no title heading", p)
		}
		for _, l := range linkRe.FindAllStringSubmatch(text, -1) {
			links++
			if !titles[l[1]] {
				t.Errorf("%s: link to %q, which is not a generated note", p, l[1])
			}
		}
	}
	if frontmatter < 250 || links == 0 || int64(links) > m.Links {
		t.Errorf("%d notes with frontmatter, %d links (manifest %d)", frontmatter, links, m.Links)
	}
	if total != m.Bytes {
		t.Errorf("manifest says %d bytes, notes hold %d", m.Bytes, total)
	}
	if mean := total / 300; mean < 1500 || mean > 3500 {
		t.Errorf("mean note size %d bytes, want about 2,500", mean)
	}
}

func TestCached(t *testing.T) {
	cache := t.TempDir()
	loads := 0
	load := func() (*Source, error) { loads++; return testSource(t), nil }
	opt := Options{Notes: 50, Seed: 1}
	dir, m, err := Cached(cache, opt, load)
	if err != nil || m.Notes != 50 {
		t.Fatalf("%v %+v", err, m)
	}
	dir2, _, err := Cached(cache, opt, load)
	if err != nil || dir2 != dir || loads != 1 {
		t.Errorf("second call: %s (first %s), %v, %d source loads; want the cached vault", dir2, dir, err, loads)
	}
	// An incomplete vault (no manifest) is made again.
	os.Remove(filepath.Join(dir, ManifestName))
	if _, _, err := Cached(cache, opt, load); err != nil || loads != 2 {
		t.Errorf("incomplete vault: %v, %d loads", err, loads)
	}
	if _, err := ReadManifest(dir); err != nil {
		t.Error(err)
	}
}
