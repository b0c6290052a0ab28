package chunk

import (
	"slices"
	"testing"
)

func TestFrontmatter(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		bodyStart int
		title     string
		tags      []string
		aliases   []string
		metaNil   bool
		chunks    []string
	}{
		{
			name:      "list tags and aliases",
			src:       "---\ntitle: Hello\ntags:\n  - a\n  - '#b/c'\naliases: [x, y]\n---\n# H1\nbody #d\n",
			bodyStart: 60, title: "Hello", tags: []string{"a", "b/c", "d"}, aliases: []string{"x", "y"},
			chunks: []string{"L9-L9 [H1] body #d"},
		},
		{
			name:      "string tags and single alias",
			src:       "---\ntags: \"one, two #three\"\nalias: Only One\n---\ntext\n",
			bodyStart: 48, tags: []string{"one", "two", "three"}, aliases: []string{"Only One"},
			chunks: []string{"L5-L5 [] text"},
		},
		{
			name:      "dots closing line",
			src:       "---\na: 1\n...\nbody\n",
			bodyStart: 13, chunks: []string{"L4-L4 [] body"},
		},
		{
			name:      "CRLF frontmatter",
			src:       "---\r\ntitle: W\r\n---\r\n\r\nbody\r\n",
			bodyStart: 20, title: "W", chunks: []string{"L5-L5 [] body"},
		},
		{
			name:      "BOM and frontmatter",
			src:       "\ufeff---\ntitle: X\n---\nbody\n",
			bodyStart: 20, title: "X", chunks: []string{"L4-L4 [] body"},
		},
		{
			name:      "malformed YAML is still skipped",
			src:       "---\ntags: [a, b\n\tbad: : :\n---\n# T\nbody\n",
			bodyStart: 30, title: "T", metaNil: true, chunks: []string{"L6-L6 [T] body"},
		},
		{
			name:      "non-mapping YAML",
			src:       "---\n- a\n- b\n---\nbody\n",
			bodyStart: 16, metaNil: true, chunks: []string{"L5-L5 [] body"},
		},
		{
			name:      "empty frontmatter",
			src:       "---\n---\nbody",
			bodyStart: 8, metaNil: true, chunks: []string{"L3-L3 [] body"},
		},
		{
			name:      "frontmatter only",
			src:       "---\ntitle: Empty\n---\n",
			bodyStart: 21, title: "Empty",
		},
		{
			name:      "frontmatter only without final newline",
			src:       "---\ntitle: Empty\n---",
			bodyStart: 20, title: "Empty",
		},
		{
			name:    "unclosed is not frontmatter",
			src:     "---\ntitle: nope\n",
			metaNil: true, chunks: []string{"L1-L2 [] ---\ntitle: nope"},
		},
		{
			name:    "opening line must be exact",
			src:     "--- \na: b\n---\nc\n",
			metaNil: true, chunks: []string{"L1-L4 [a: b] --- \na: b\n---\nc"}, // one tiny unit
		},
		{
			name:    "not at start",
			src:     "\n---\na: b\n---\n",
			metaNil: true, // a rule and a heading: nothing to search
		},
		{
			name:      "title falls back to first H1, frontmatter title wins",
			src:       "---\ntitle: ''\n---\n## Two\n# One\n# Other\n",
			bodyStart: 18, title: "One", metaNil: false,
			// headings only: no chunks
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := mustMarkdown(t, tc.src, Options{})
			if doc.BodyStart != tc.bodyStart {
				t.Errorf("BodyStart = %d, want %d", doc.BodyStart, tc.bodyStart)
			}
			if doc.Title != tc.title {
				t.Errorf("Title = %q, want %q", doc.Title, tc.title)
			}
			if !slices.Equal(doc.Tags, tc.tags) {
				t.Errorf("Tags = %q, want %q", doc.Tags, tc.tags)
			}
			if !slices.Equal(doc.Aliases, tc.aliases) {
				t.Errorf("Aliases = %q, want %q", doc.Aliases, tc.aliases)
			}
			if (doc.Meta == nil) != tc.metaNil {
				t.Errorf("Meta = %v, want nil=%v", doc.Meta, tc.metaNil)
			}
			if _, chunks := summary(doc); !slices.Equal(chunks, tc.chunks) {
				t.Errorf("chunks:\n got %q\nwant %q", chunks, tc.chunks)
			}
		})
	}
}

func TestInlineTags(t *testing.T) {
	src := "# Head #inhead\n\nSome #tag and #Tag again, `#notcode` and a#b, #123, #2024x,\n#nested/tag/ and #with-dash. (#paren)\n\n```\n#nope\n```\n\n    #indented-code\n\n<!-- #html -->\n\n[#link](#anchor) \\#escaped #ünïcode #日本"
	doc := mustMarkdown(t, src, Options{})
	// A tag may follow '(' (Obsidian), so "(#paren)" is a tag.
	want := []string{"inhead", "tag", "2024x", "nested/tag", "with-dash", "paren", "ünïcode", "日本"}
	if !slices.Equal(doc.Tags, want) {
		t.Errorf("Tags = %q, want %q", doc.Tags, want)
	}
}
