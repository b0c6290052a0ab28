package graph

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// nameKeySlow is NameKey without its plain-name shortcut.
func nameKeySlow(s string) string {
	s = strings.TrimSpace(strings.ReplaceAll(s, "\\", "/"))
	if strings.HasSuffix(strings.ToLower(s), ".md") {
		s = s[:len(s)-3]
	}
	s = strings.Trim(s, "/ ")
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

func TestNameKeyShortcut(t *testing.T) {
	pieces := []string{"a", "Z", "Note", " ", "  ", "/", "\\", ".md", ".MD", ".Md", ".md", ".mD", "md", ".", "\t", "\n", "é", "É",
		"\u00a0", "\u0085", "x.mdx", "#", "|", "-", "2024", "\x7f", "İ"}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(7) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		if s := b.String(); NameKey(s) != nameKeySlow(s) {
			t.Fatalf("NameKey(%q) = %q, want %q", s, NameKey(s), nameKeySlow(s))
		}
	}
}

func FuzzNameKey(f *testing.F) {
	for _, s := range []string{"", "Note", "a b", "Dir/Note.md", " x ", "A  B", "a\\b", "x.MD", "a/.md", "x.md.md", ".md", "a .md"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := NameKey(s), nameKeySlow(s); got != want {
			t.Fatalf("NameKey(%q) = %q, want %q", s, got, want)
		}
	})
}
