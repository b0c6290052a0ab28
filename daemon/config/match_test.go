package config

import (
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

func TestMatch(t *testing.T) {
	def := Vault{Include: DefaultInclude, Exclude: DefaultExclude}
	user := Vault{
		Include: []string{"**/*.md", "*.pdf"},
		Exclude: append(append([]string{}, DefaultExclude...), "drafts/**", "archive/*", "**/*.tmp.md", "private"),
	}
	for _, tt := range []struct {
		v    Vault
		rel  string
		want bool
	}{
		{def, "notes/a.md", true},
		{def, "a.md", true},
		{def, "./a.md", true},
		{def, "deep/er/x.markdown", true},
		{def, "todo.txt", true},
		{def, "a.pdf", true}, {def, "a.png", false},
		{def, "a.MD", false}, // patterns are case-sensitive
		{def, ".obsidian/workspace.json", false},
		{def, ".obsidian/notes.md", false},
		{def, ".git/COMMIT_EDITMSG.txt", false},
		{def, "sub/.git/readme.md", false}, // default dirs at any depth
		{def, "proj/node_modules/pkg/README.md", false},
		{def, ".trash/old.md", false},
		{def, ".obsidianish/a.md", true},
		{def, "", false},
		{def, ".", false},
		{def, "../outside.md", false},
		{def, "/abs.md", false},
		{user, "a.pdf", true},
		{user, "sub/a.pdf", false}, // "*.pdf" is root-only in doublestar
		{user, "drafts/a.md", false},
		{user, "drafts/x/y/a.md", false},
		{user, "notes/drafts/a.md", true},
		{user, "archive/a.md", false},
		{user, "archive/old/a.md", false}, // archive/old is excluded as a directory
		{user, "x/y.tmp.md", false},
		{user, "private/a.md", false}, // a pattern naming a directory excludes its contents
		{user, "privateer.md", true},
	} {
		if got := tt.v.Match(tt.rel); got != tt.want {
			t.Errorf("%v.Match(%q) = %v, want %v", tt.v.Exclude, tt.rel, got, tt.want)
		}
	}
}

func TestExcludedDir(t *testing.T) {
	v := Vault{
		Include: DefaultInclude,
		Exclude: append(append([]string{}, DefaultExclude...), "drafts/**", "archive/*", "**/build", "attachments/*.png"),
	}
	for _, tt := range []struct {
		rel  string
		want bool
	}{
		{".obsidian", true},
		{".obsidian/plugins", true},
		{".git", true},
		{"a/b/.git", true},
		{"a/node_modules", true},
		{".trash", true},
		{"notes", false},
		{"notes/sub", false},
		{"drafts", true},
		{"drafts/deep", true},
		{"notes/drafts", false},
		{"archive", false}, // only its contents are excluded
		{"archive/2020", true},
		{"x/build", true},
		{"build/y", true},
		{"attachments", false}, // only some files in it are excluded
		{"", false},
		{".", false},
	} {
		if got := v.ExcludedDir(tt.rel); got != tt.want {
			t.Errorf("ExcludedDir(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
	// A walker that skips excluded directories never sees a file that
	// Match would accept inside them.
	for _, f := range []string{"drafts/a.md", "archive/2020/a.md", "x/build/a.md", ".obsidian/a.md"} {
		if v.Match(f) {
			t.Errorf("Match(%q) = true inside an excluded directory", f)
		}
	}
}

func TestMatchInvalidPattern(t *testing.T) {
	v := Vault{Include: []string{"[", "**/*.md"}, Exclude: []string{"{"}}
	if !v.Match("a.md") || v.Match("a.txt") || v.ExcludedDir("x") {
		t.Error("invalid patterns in a hand-built Vault should match nothing")
	}
}

// match's shortcuts agree with the matcher.
func TestMatchShortcutsAgreeWithDoublestar(t *testing.T) {
	patterns := append(append([]string{"*.pdf", "drafts/*", "a/b.md", "**/x/*.md", "**/*.md/**", "[ab].md", "**/*"}, DefaultInclude...), DefaultExclude...)
	names := []string{"a.md", "a/b.md", ".md", "a/.md", "b.MD", "x/y.md", "drafts", "drafts/n.md", "drafts/old/n.md",
		".obsidian", ".obsidian/app.json", "notes/.git", ".git", "a.md/b", "a.pdf", "a/b.pdf", "x.markdown", "a.md"}
	for _, p := range patterns {
		for _, n := range names {
			want, err := doublestar.Match(p, n)
			want = want && err == nil
			if got := match(p, n); got != want {
				t.Errorf("match(%q, %q) = %v, doublestar says %v", p, n, got, want)
			}
		}
	}
}
