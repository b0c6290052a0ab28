package chunk

import (
	"slices"
	"strings"
	"testing"
)

// linkSummary renders every link with formatLink: kind, the exact source
// text src[Start:End] and the non-empty fields.
func linkSummary(src string, doc *Document) []string {
	var out []string
	for _, l := range doc.Links {
		out = append(out, formatLink([]byte(src), l))
	}
	return out
}

func TestLinks(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		links []string
		tags  []string // nil: not checked
	}{
		{
			name: "wikilinks with alias, spaces and unicode",
			src:  "See [[Note]], [[Other Note|the other one]] and [[Café Ünïcode 日本]].\n",
			links: []string{
				`wiki "[[Note]]" target="Note"`,
				`wiki "[[Other Note|the other one]]" target="Other Note" alias="the other one"`,
				`wiki "[[Café Ünïcode 日本]]" target="Café Ünïcode 日本"`,
			},
		},
		{
			name: "headings, block refs and same-note links",
			src:  "[[Note#Heading]] [[Note#^abc123]] [[#Local Heading]] [[#^blk-1|here]] [[Note#H1#H2]] [[Note.md]]",
			links: []string{
				`wiki "[[Note#Heading]]" target="Note" heading="Heading"`,
				`wiki "[[Note#^abc123]]" target="Note" block="abc123"`,
				`wiki "[[#Local Heading]]" target="" heading="Local Heading"`,
				`wiki "[[#^blk-1|here]]" target="" block="blk-1" alias="here"`,
				`wiki "[[Note#H1#H2]]" target="Note" heading="H1#H2"`,
				`wiki "[[Note.md]]" target="Note.md"`,
			},
		},
		{
			name: "embeds of images and notes",
			src:  "![[image.png]]\n![[Note]] ![[Note#Heading]] ![[photo.jpg|300]] ![[Doc#^quote]]\n",
			links: []string{
				`embed "![[image.png]]" target="image.png"`,
				`embed "![[Note]]" target="Note"`,
				`embed "![[Note#Heading]]" target="Note" heading="Heading"`,
				`embed "![[photo.jpg|300]]" target="photo.jpg" alias="300"`,
				`embed "![[Doc#^quote]]" target="Doc" block="quote"`,
			},
		},
		{
			name: "callout",
			src:  "> [!note] Decision log\n> All decisions are in [[ADR Index]]. #decisions\n>#tight\n",
			links: []string{
				`wiki "[[ADR Index]]" target="ADR Index"`,
				`tag "#decisions" target="decisions"`,
				`tag "#tight" target="tight"`,
			},
			tags: []string{"decisions", "tight"},
		},
		{
			name: "table with escaped pipe",
			src:  "| Who | Note |\n|-----|------|\n| Maria | [[People/Maria Chen\\|Maria]] |\n| Tom | [[Tom Weber#Role\\|Tom]] #team |\n",
			links: []string{
				`wiki "[[People/Maria Chen\\|Maria]]" target="People/Maria Chen" alias="Maria"`,
				`wiki "[[Tom Weber#Role\\|Tom]]" target="Tom Weber" heading="Role" alias="Tom"`,
				`tag "#team" target="team"`,
			},
		},
		{
			name: "list items",
			src:  "- item [[Listed]]\n  - nested [[Deep|d]] #todo\n1. [[Numbered]]\n- [ ] task for [[Someone]]\n",
			links: []string{
				`wiki "[[Listed]]" target="Listed"`,
				`wiki "[[Deep|d]]" target="Deep" alias="d"`,
				`tag "#todo" target="todo"`,
				`wiki "[[Numbered]]" target="Numbered"`,
				`wiki "[[Someone]]" target="Someone"`,
			},
		},
		{
			name: "headings",
			src:  "# Plan for [[Project X|X]] #plan\n\nSetext [[Under]]\n---\n\n## [Doc](Doc.md) ##\n",
			links: []string{
				`wiki "[[Project X|X]]" target="Project X" alias="X"`,
				`tag "#plan" target="plan"`,
				`wiki "[[Under]]" target="Under"`,
				`markdown "[Doc](Doc.md)" target="Doc.md" alias="Doc"`,
			},
			tags: []string{"plan"},
		},
		{
			name: "inline code",
			src:  "Use `[[NotLink]]` or ``a [[No]] #no `b` `` or `#nocode` but [[Yes]] `[x](x.md)`",
			links: []string{
				`wiki "[[Yes]]" target="Yes"`,
			},
			tags: []string{},
		},
		{
			name: "code blocks",
			src:  "```md\n[[No]] #no [x](x.md)\n```\n\n~~~\n![[no.png]]\n~~~\n\n    [[indented]] #indented\n\nafter [[Yes]]\n",
			links: []string{
				`wiki "[[Yes]]" target="Yes"`,
			},
			tags: []string{},
		},
		{
			name: "html comments and blocks",
			src:  "text <!-- [[Hidden]] #hidden --> [[Shown]]\n\n<!--\n[[Hidden block]] #h\n-->\n\n<div>[[In HTML]]</div>\n",
			links: []string{
				`wiki "[[Shown]]" target="Shown"`,
			},
			tags: []string{},
		},
		{
			name:  "not wikilinks",
			src:   "[[Unclosed on this line\nnext]] line, [[a]b]], [[a [b] c]], [[]], [[ ]], [[|x]], \\[[Escaped]] and [Single]\n",
			links: nil,
		},
		{
			name: "nested brackets",
			src:  "[[[Triple]]] and [[outer [[Inner]] outer]]",
			links: []string{
				`wiki "[[Triple]]" target="Triple"`,
				`wiki "[[Inner]]" target="Inner"`,
			},
		},
		{
			name: "markdown links",
			src:  "[text](Other%20Note.md) [sec](sub/Note.md#My%20Heading) [blk](Note.md#^b1) [pdf](files/doc.pdf)\n[up](../Up.md \"Title\") [angle](<My Note.md>) [**bold** `code`](B.md) [](Empty.md) [[wiki]](x.md)\n",
			links: []string{
				`markdown "[text](Other%20Note.md)" target="Other Note.md" alias="text"`,
				`markdown "[sec](sub/Note.md#My%20Heading)" target="sub/Note.md" heading="My Heading" alias="sec"`,
				`markdown "[blk](Note.md#^b1)" target="Note.md" block="b1" alias="blk"`,
				`markdown "[pdf](files/doc.pdf)" target="files/doc.pdf" alias="pdf"`,
				`markdown "[up](../Up.md \"Title\")" target="../Up.md" alias="up"`,
				`markdown "[angle](<My Note.md>)" target="My Note.md" alias="angle"`,
				`markdown "[**bold** ` + "`code`" + `](B.md)" target="B.md" alias="bold code"`,
				`markdown "[](Empty.md)" target="Empty.md"`,
				`wiki "[[wiki]]" target="wiki"`,
			},
		},
		{
			name: "markdown images",
			src:  "![alt text](img/x.png) ![](pic%201.jpg) [![badge](b.svg)](Page.md)",
			links: []string{
				`embed "![alt text](img/x.png)" target="img/x.png" alias="alt text"`,
				`embed "![](pic%201.jpg)" target="pic 1.jpg"`,
				`markdown "[![badge](b.svg)](Page.md)" target="Page.md" alias="badge"`,
				`embed "![badge](b.svg)" target="b.svg" alias="badge"`,
			},
		},
		{
			name: "reference links",
			src:  "[text][ref], [ref] and [Collapsed][] and ![img][pic]\n\n[ref]: Target%20Note.md\n[collapsed]: C.md#Part\n[pic]: p.png\n",
			links: []string{
				`markdown "[text][ref]" target="Target Note.md" alias="text"`,
				`markdown "[ref]" target="Target Note.md" alias="ref"`,
				`markdown "[Collapsed][]" target="C.md" heading="Part" alias="Collapsed"`,
				`embed "![img][pic]" target="p.png" alias="img"`,
			},
		},
		{
			name: "wikilink is not also a reference link",
			src:  "[[Note]] and ![[Note]]\n\n[Note]: Local.md\n",
			links: []string{
				`wiki "[[Note]]" target="Note"`,
				`embed "![[Note]]" target="Note"`,
			},
		},
		{
			name:  "external links ignored",
			src:   "[a](https://x.com) [b](http://x/#y) [c](mailto:a@b.c) [d](obsidian://open?vault=x) [e](//host/x) [f](#frag) [g](file:///etc) <https://auto.link/#t> ![r](https://x/img.png) https://bare.url/#frag\n",
			links: nil,
			tags:  []string{},
		},
		{
			name: "tags",
			src:  "#start of line\n(#paren) text #nested/tag/ and #a/b, #123 #2024x #2024/05 a#b http://x/#frag ##double #ü_ñ-1\n# Heading #inhead\n\\#escaped [[Note|see #notatag]] [see #intext](Page.md)\n",
			links: []string{
				`tag "#start" target="start"`,
				`tag "#paren" target="paren"`,
				`tag "#nested/tag" target="nested/tag"`,
				`tag "#a/b" target="a/b"`,
				`tag "#2024x" target="2024x"`,
				`tag "#2024/05" target="2024/05"`,
				`tag "#ü_ñ-1" target="ü_ñ-1"`,
				`tag "#inhead" target="inhead"`,
				`wiki "[[Note|see #notatag]]" target="Note" alias="see #notatag"`,
				`markdown "[see #intext](Page.md)" target="Page.md" alias="see #intext"`,
				`tag "#intext" target="intext"`,
			},
			tags: []string{"start", "paren", "nested/tag", "a/b", "2024x", "2024/05", "ü_ñ-1", "inhead", "intext"},
		},
		{
			name: "CRLF",
			src:  "[[A]]\r\n#tag\r\n> [[B|b]]\r\n",
			links: []string{
				`wiki "[[A]]" target="A"`,
				`tag "#tag" target="tag"`,
				`wiki "[[B|b]]" target="B" alias="b"`,
			},
		},
		{
			name: "frontmatter",
			src: "---\ntitle: T\nup: \"[[Home]]\"\nrelated: [\"[[A]]\", \"[[B|b]]\"]\naliases: [\"[[NotALink]]\"]\ntags:\n  - one\n  - '#two/sub'\n" +
				"parent: [[Unquoted]]\nlinks:\n  - \"[[C#H]]\"\n  - plain\n  - see [[D]] and [[E#^b]]\nembed: \"![[pic.png]]\"\ncount: 3\n---\nBody [[X]] #bodytag\n",
			links: []string{
				`frontmatter "up: \"[[Home]]\"" target="Home" field="up"`,
				`frontmatter "related: [\"[[A]]\", \"[[B|b]]\"]" target="A" field="related"`,
				`frontmatter "related: [\"[[A]]\", \"[[B|b]]\"]" target="B" alias="b" field="related"`,
				`tag "- one" target="one" field="tags"`,
				`tag "- '#two/sub'" target="two/sub" field="tags"`,
				`frontmatter "parent: [[Unquoted]]" target="Unquoted" field="parent"`,
				`frontmatter "- \"[[C#H]]\"" target="C" heading="H" field="links"`,
				`frontmatter "- see [[D]] and [[E#^b]]" target="D" field="links"`,
				`frontmatter "- see [[D]] and [[E#^b]]" target="E" block="b" field="links"`,
				`frontmatter "embed: \"![[pic.png]]\"" target="pic.png" field="embed"`,
				`wiki "[[X]]" target="X"`,
				`tag "#bodytag" target="bodytag"`,
			},
			tags: []string{"one", "two/sub", "bodytag"},
		},
		{
			name: "frontmatter string tags and tag key",
			src:  "---\r\ntag: \"#daily, #journal/2024/\"\r\n---\r\n#daily again\r\n",
			links: []string{
				`tag "tag: \"#daily, #journal/2024/\"" target="daily" field="tag"`,
				`tag "tag: \"#daily, #journal/2024/\"" target="journal/2024" field="tag"`,
				`tag "#daily" target="daily"`,
			},
			tags: []string{"daily", "journal/2024"},
		},
		{
			name:  "malformed frontmatter has no links",
			src:   "---\nup: \"[[Home]]\n\tbad: : :\n---\nbody\n",
			links: nil,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := mustMarkdown(t, tc.src, Options{})
			if got := linkSummary(tc.src, doc); !slices.Equal(got, tc.links) {
				t.Errorf("links:\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(tc.links, "\n     "))
			}
			if tc.tags != nil && !slices.Equal(doc.Tags, tc.tags) && (len(doc.Tags) != 0 || len(tc.tags) != 0) {
				t.Errorf("Tags = %q, want %q", doc.Tags, tc.tags)
			}
		})
	}
}

// TestLinkSpans checks that every span is exactly the reference text.
func TestLinkSpans(t *testing.T) {
	src := "---\nup: \"[[Home]]\"\n---\n# T [[H]]\n\n> [!tip] x ![[e.png]] [m](M.md) #t\n\n| [[A\\|B]] |\n"
	doc := mustMarkdown(t, src, Options{})
	want := []string{`up: "[[Home]]"`, "[[H]]", "![[e.png]]", "[m](M.md)", "#t", `[[A\|B]]`}
	var got []string
	for _, l := range doc.Links {
		got = append(got, src[l.Start:l.End])
	}
	if !slices.Equal(got, want) {
		t.Errorf("spans %q, want %q", got, want)
	}
	if doc.Title != "T H" {
		t.Errorf("Title = %q", doc.Title)
	}
}

func TestLinkKindString(t *testing.T) {
	for k, want := range map[LinkKind]string{LinkWiki: "wiki", LinkEmbed: "embed", LinkMarkdown: "markdown",
		LinkTag: "tag", LinkFrontmatter: "frontmatter", 0: "LinkKind(0)", 42: "LinkKind(42)"} {
		if got := k.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", k, got, want)
		}
	}
}

func TestPlainTextHasNoLinks(t *testing.T) {
	doc, err := PlainText([]byte("[[A]] #tag [m](M.md)"), Options{})
	if err != nil || doc.Links != nil {
		t.Fatalf("PlainText links = %v, %v", doc.Links, err)
	}
}

func TestWikilinkWithCodeInside(t *testing.T) {
	src := "Use [[Functions#hasTag|`hasTag`]] and [[Filters#`wikilink`|wikilink]], not `[[Code]]`.\n"
	doc, err := Markdown([]byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range doc.Links {
		got = append(got, l.Target+"#"+l.Heading+"|"+l.Alias)
	}
	want := []string{"Functions#hasTag|`hasTag`", "Filters#`wikilink`|wikilink"}
	if strings.Join(got, ";") != strings.Join(want, ";") {
		t.Fatalf("links = %q, want %q", got, want)
	}
}
