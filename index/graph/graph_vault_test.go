package graph_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/ragd/ragd/index/indextest"
)

// plainBacklinks computes, by a plain scan of the files, which notes link
// to which: wikilinks and embeds outside fenced code and inline code,
// resolved by vault path, file name or frontmatter alias (case-insensitive,
// without ".md"), and relative Markdown links to .md files.
func plainBacklinks(t *testing.T, root string) map[string][]string {
	t.Helper()
	notes := map[string]string{} // path → content
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(root, p)
			notes[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	key := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		return strings.TrimSuffix(s, ".md")
	}
	names := map[string][]string{}
	for p, body := range notes {
		ks := []string{key(p), key(path.Base(p))}
		if strings.HasPrefix(body, "---\n") {
			if end := strings.Index(body[4:], "\n---"); end >= 0 {
				var fm struct{ Aliases any }
				if yaml.Unmarshal([]byte(body[4:4+end]), &fm) == nil {
					switch a := fm.Aliases.(type) {
					case string:
						ks = append(ks, key(a))
					case []any:
						for _, x := range a {
							if s, ok := x.(string); ok {
								ks = append(ks, key(s))
							}
						}
					}
				}
			}
		}
		for _, k := range ks {
			if !contains(names[k], p) {
				names[k] = append(names[k], p)
			}
		}
	}
	back := map[string][]string{}
	link := func(src, target string) {
		for _, n := range names[key(target)] {
			if !contains(back[n], src) {
				back[n] = append(back[n], src)
			}
		}
	}
	for p, body := range notes {
		inFence := false
		for i, line := range strings.Split(body, "\n") {
			trim := strings.TrimSpace(line)
			if strings.HasPrefix(trim, "```") || strings.HasPrefix(trim, "~~~") {
				inFence = !inFence
				continue
			}
			if inFence || i == 0 && trim == "---" {
				continue
			}
			line = stripInlineCode(line)
			for rest := line; ; {
				i := strings.Index(rest, "[[")
				if i < 0 {
					break
				}
				j := strings.Index(rest[i:], "]]")
				if j < 0 {
					break
				}
				target := rest[i+2 : i+j]
				target = strings.ReplaceAll(target, `\|`, "|")
				target, _, _ = strings.Cut(target, "|")
				target, _, _ = strings.Cut(target, "#")
				if target != "" {
					link(p, target)
				}
				rest = rest[i+j+2:]
			}
			for rest := line; ; {
				i := strings.Index(rest, "](")
				if i < 0 {
					break
				}
				j := strings.IndexByte(rest[i:], ')')
				if j < 0 {
					break
				}
				dest := rest[i+2 : i+j]
				dest, _, _ = strings.Cut(dest, "#")
				if strings.HasSuffix(strings.ToLower(dest), ".md") && !strings.Contains(dest, "://") {
					dest = strings.ReplaceAll(dest, "%20", " ")
					link(p, path.Join(path.Dir(p), dest))
				}
				rest = rest[i+j+1:]
			}
		}
	}
	for k := range back {
		sort.Strings(back[k])
	}
	return back
}

func stripInlineCode(line string) string {
	var b strings.Builder
	in := false
	for _, r := range line {
		if r == '`' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// TestBacklinksMatchPlainScanOnObsidianHelp checks, for every note of the
// Obsidian Help vault, that the graph's backlinks equal a plain scan.
func TestBacklinksMatchPlainScanOnObsidianHelp(t *testing.T) {
	root := "../../../shared/vaults/obsidian-help-en"
	files := indextest.SharedVault(t, root)
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	indextest.Sync(t, s, "help", files)
	want := plainBacklinks(t, root)
	mismatches := 0
	for _, f := range files {
		bl, err := s.Backlinks("help", f.Rel)
		if err != nil {
			t.Fatalf("%s: %v", f.Rel, err)
		}
		var got []string
		for _, src := range sources(bl) {
			if src != f.Rel || contains(want[f.Rel], src) {
				got = append(got, src)
			}
		}
		w := want[f.Rel]
		if !reflect.DeepEqual(got, w) && !(len(got) == 0 && len(w) == 0) {
			mismatches++
			if mismatches <= 5 {
				t.Errorf("%s: backlinks\n got %v\nwant %v", f.Rel, got, w)
			}
		}
	}
	if mismatches > 0 {
		t.Errorf("%d of %d notes differ", mismatches, len(files))
	}
}
