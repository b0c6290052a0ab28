package llmentities

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
		max  int
		want []chunk
	}{
		{"empty", "", 50, nil},
		{"blank lines only", "\n\n  \n", 50, nil},
		{"paragraphs packed", "aaa\n\nbbb\n\nccc", 50, []chunk{{1, "aaa\n\nbbb\n\nccc"}}},
		{"packing stops at max", "aaaa\n\nbbbb\n\ncccc", 10, []chunk{{1, "aaaa\n\nbbbb"}, {5, "cccc"}}},
		{"headings start chunks", "# A\ntext a\n## B\n\ntext b", 50,
			[]chunk{{1, "# A\ntext a"}, {3, "## B\n\ntext b"}}},
		{"heading-only chunk joins the next", "# A\n## B\ntext", 50, []chunk{{1, "# A\n## B\ntext"}}},
		{"hash in code fence is not a heading", "intro\n```sh\n# comment\n```\n# Real\nx", 50,
			[]chunk{{1, "intro\n```sh\n# comment\n```"}, {5, "# Real\nx"}}},
		{"#hashtag is not a heading", "a\n#tag b", 50, []chunk{{1, "a\n#tag b"}}},
		{"long paragraph split by lines", "l1 aaaa\nl2 bbbb\nl3 cccc", 16,
			[]chunk{{1, "l1 aaaa\nl2 bbbb"}, {3, "l3 cccc"}}},
		{"long line split by characters", "x\n\nééééééé\ny", 3,
			[]chunk{{1, "x"}, {3, "ééé"}, {3, "ééé"}, {3, "é"}, {4, "y"}}},
		{"CRLF", "a\r\n\r\n# H\r\nb", 50, []chunk{{1, "a"}, {3, "# H\nb"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := split(tc.text, tc.max)
			if len(got) != len(tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("chunk %d = %+v, want %+v", i, got[i], tc.want[i])
				}
				if n := utf8.RuneCountInString(got[i].Text); n > tc.max {
					t.Errorf("chunk %d has %d characters > %d", i, n, tc.max)
				}
			}
		})
	}
}

func TestSplitLinesMatchText(t *testing.T) {
	text := strings.Repeat("# Head\n\nSome words here.\nMore words.\n\n", 30)
	lines := strings.Split(text, "\n")
	for _, c := range split(text, 60) {
		first, _, _ := strings.Cut(c.Text, "\n")
		if lines[c.Line-1] != first {
			t.Fatalf("chunk at line %d starts %q, line is %q", c.Line, first, lines[c.Line-1])
		}
	}
}

func TestParseReply(t *testing.T) {
	const js = `{"entities":[{"name":"X","type":"OTHER","aliases":[],"confidence":1}],"relations":[]}`
	for _, s := range []string{
		js,
		"```json\n" + js + "\n```",
		"```\n" + js + "\n```",
		"Sure! Here it is:\n```json\n" + js + "\n```\nAnything else?",
		"The result is " + js + " as requested.",
	} {
		r, err := parseReply(s)
		if err != nil || len(r.Entities) != 1 || r.Entities[0].Name != "X" {
			t.Errorf("%q: %+v, %v", s, r, err)
		}
	}
	for _, s := range []string{"", "no json here", "```json\n{\"entities\": [\n```"} {
		if _, err := parseReply(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

func TestCleanAndLRU(t *testing.T) {
	var r reply
	add := func(name, typ string, conf float64, aliases ...string) {
		r.Entities = append(r.Entities, struct {
			Name       string   `json:"name"`
			Type       string   `json:"type"`
			Aliases    []string `json:"aliases"`
			Confidence float64  `json:"confidence"`
		}{name, typ, aliases, conf})
	}
	add("Go", "product", 0.7, "golang")
	add("go", "PRODUCT", 1.4, "Golang", "Go lang")
	add(" ", "PERSON", 1)
	add("Mars", "PLANET", 0.9)
	ents, _ := clean(r, 0.5)
	if len(ents) != 2 || ents[0].Confidence != 1 || strings.Join(ents[0].Aliases, ",") != "golang,Go lang" ||
		ents[1].Type != "OTHER" {
		t.Errorf("clean: %+v", ents)
	}
	c := newCache("", 2)
	c.put("a", "m", reply{})
	c.put("b", "m", reply{})
	c.get("a") // a is now more recent than b
	c.put("c", "m", reply{})
	if _, ok := c.get("b"); ok {
		t.Error("least recently used entry kept")
	}
	if _, ok := c.get("a"); !ok {
		t.Error("recently used entry evicted")
	}
}
