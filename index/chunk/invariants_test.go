package chunk

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// countLine returns the 1-based line of byte offset off, counted naively.
func countLine(src []byte, off int) int {
	return bytes.Count(src[:off], []byte{'\n'}) + 1
}

func checkSpan(t testing.TB, src []byte, what string, s Span) {
	t.Helper()
	if s.Start < 0 || s.End > len(src) || s.Start >= s.End {
		t.Fatalf("%s: bad range [%d,%d) len(src)=%d", what, s.Start, s.End, len(src))
	}
	if isSpace(src[s.Start]) || isSpace(src[s.End-1]) {
		t.Fatalf("%s: not trimmed: %q", what, src[s.Start:s.End])
	}
	if !utf8.RuneStart(src[s.Start]) || (s.End < len(src) && !utf8.RuneStart(src[s.End])) {
		t.Fatalf("%s: splits a UTF-8 sequence at [%d,%d)", what, s.Start, s.End)
	}
	if ls, le := countLine(src, s.Start), countLine(src, s.End-1); s.LineStart != ls || s.LineEnd != le {
		t.Fatalf("%s: lines L%d-L%d, want L%d-L%d", what, s.LineStart, s.LineEnd, ls, le)
	}
}

// checkDoc verifies every structural invariant of a chunked document.
// markdown selects the coverage rule: Markdown heading lines need not be
// covered by children.
func checkDoc(t testing.TB, src []byte, doc *Document, opt Options, markdown bool) {
	t.Helper()
	opt = opt.WithDefaults()
	if doc.BodyStart < 0 || doc.BodyStart > len(src) {
		t.Fatalf("BodyStart %d out of range", doc.BodyStart)
	}
	checkLinks(t, src, doc, markdown)
	for i, p := range doc.Parents {
		checkSpan(t, src, "parent", p.Span)
		if p.Start < doc.BodyStart {
			t.Fatalf("parent %d starts in frontmatter", i)
		}
		if p.End-p.Start > opt.ParentChars {
			t.Fatalf("parent %d has %d bytes > ParentChars %d", i, p.End-p.Start, opt.ParentChars)
		}
		if i > 0 && p.Start < doc.Parents[i-1].End {
			t.Fatalf("parent %d overlaps parent %d", i, i-1)
		}
		if !markdown && len(p.Heading) != 0 {
			t.Fatalf("plain text parent %d has heading %q", i, p.Heading)
		}
	}
	children := make([]int, len(doc.Parents))
	covered := make([]bool, len(src))
	for i, c := range doc.Chunks {
		checkSpan(t, src, "chunk", c.Span)
		if c.Text != string(src[c.Start:c.End]) {
			t.Fatalf("chunk %d: Text != src[Start:End]", i)
		}
		if c.Parent < 0 || c.Parent >= len(doc.Parents) {
			t.Fatalf("chunk %d: parent %d out of range", i, c.Parent)
		}
		p := doc.Parents[c.Parent]
		children[c.Parent]++
		if c.Start < p.Start || c.End > p.End {
			t.Fatalf("chunk %d [%d,%d) outside parent %d [%d,%d)", i, c.Start, c.End, c.Parent, p.Start, p.End)
		}
		if !slices.Equal(c.Heading, p.Heading) {
			t.Fatalf("chunk %d heading %q != parent heading %q", i, c.Heading, p.Heading)
		}
		if n := c.End - c.Start; n > opt.ChildChars {
			t.Fatalf("chunk %d has %d bytes > ChildChars %d", i, n, opt.ChildChars)
		}
		if i > 0 {
			prev := doc.Chunks[i-1]
			if c.Parent < prev.Parent || c.Start <= prev.Start || c.End <= prev.End {
				t.Fatalf("chunk %d not after chunk %d", i, i-1)
			}
			if ov := prev.End - c.Start; ov > 0 {
				if c.Parent != prev.Parent {
					t.Fatalf("chunks %d and %d of different parents overlap", i-1, i)
				}
				if 2*ov > opt.ChildChars || 2*ov > prev.End-prev.Start || 2*ov > c.End-c.Start || ov > opt.ChildOverlap {
					t.Fatalf("chunk %d overlaps previous by %d bytes (len %d/%d)", i, ov, prev.End-prev.Start, c.End-c.Start)
				}
			}
		}
		for k := c.Start; k < c.End; k++ {
			covered[k] = true
		}
	}
	for i, n := range children {
		if n == 0 {
			t.Fatalf("parent %d has no children", i)
		}
	}
	subst := newSubstance(src, doc.BodyStart, headingSpans(src, doc, markdown), nil, nil)
	// No chunk without substance. (A body without substance thus has no
	// chunks, and the coverage check below makes sure a body with
	// substance has some.)
	for i, c := range doc.Chunks {
		own := c.Start // the chunk's own text, after the overlap it repeats
		if i > 0 && doc.Chunks[i-1].Parent == c.Parent && doc.Chunks[i-1].End > own {
			own = skipSpace(src, doc.Chunks[i-1].End, c.End)
		}
		if subst.count(own, c.End) == 0 {
			t.Fatalf("chunk %d has no substance: %q", i, src[own:c.End])
		}
		if len(c.Heading) > 0 && !slices.ContainsFunc(c.Headings, func(h []string) bool { return slices.Equal(h, c.Heading) }) {
			t.Fatalf("chunk %d: Headings %q lack its Heading %q", i, c.Headings, c.Heading)
		}
		if len(c.Heading) == 0 && len(c.Headings) > 0 && len(c.Headings[0]) == 0 {
			t.Fatalf("chunk %d: empty path in Headings %q", i, c.Headings)
		}
	}
	// Coverage: every part of the body with substance is in a child; what
	// is left out is headings (they travel in Heading and Headings), and
	// markup with nothing to search.
	for x := doc.BodyStart; x < len(src); {
		if covered[x] {
			x++
			continue
		}
		y := x
		for y < len(src) && !covered[y] {
			y++
		}
		if n := subst.count(x, y); n > 0 {
			t.Fatalf("bytes %d-%d (line %d, %q) with substance %d not covered by any chunk", x, y, countLine(src, x), lineAt(src, x), n)
		}
		x = y
	}
}

// headingSpans returns the heading blocks of a Markdown body, as the
// parser sees them.
func headingSpans(src []byte, doc *Document, markdown bool) []span {
	if !markdown || doc.BodyStart >= len(src) {
		return nil
	}
	li := newLineIndex(src, nil)
	var heads []span
	for _, b := range markdownBlocks(mdParser, src, doc.BodyStart, &li, &tagSet{}, &Document{}, new(scratch)) {
		if b.heading {
			heads = append(heads, b.span)
		}
	}
	return heads
}

func lineAt(src []byte, x int) []byte {
	s := bytes.LastIndexByte(src[:x], '\n') + 1
	e := bytes.IndexByte(src[x:], '\n')
	if e < 0 {
		return src[s:]
	}
	return src[s : x+e]
}

// checkLinks verifies the link invariants: spans inside src on rune
// boundaries and in source order, frontmatter links inside the frontmatter,
// body links starting with the syntax of their kind, wikilinks on one line
// and not overlapping, tag links matching their source text, and the tag
// links naming exactly the document's tags.
func checkLinks(t testing.TB, src []byte, doc *Document, markdown bool) {
	t.Helper()
	if !markdown {
		if doc.Links != nil {
			t.Fatalf("plain text has links %v", doc.Links)
		}
		return
	}
	linkTags := map[string]bool{}
	lastWikiEnd := -1
	for i, l := range doc.Links {
		if l.Start < 0 || l.End > len(src) || l.Start >= l.End {
			t.Fatalf("link %d %+v: bad span, len(src)=%d", i, l, len(src))
		}
		if !utf8.RuneStart(src[l.Start]) || (l.End < len(src) && !utf8.RuneStart(src[l.End])) {
			t.Fatalf("link %d %+v splits a UTF-8 sequence", i, l)
		}
		if i > 0 && l.Start < doc.Links[i-1].Start {
			t.Fatalf("link %d %+v before link %d %+v", i, l, i-1, doc.Links[i-1])
		}
		text := string(src[l.Start:l.End])
		if l.Kind == LinkTag {
			// Frontmatter tags are kept as written (a YAML number is a tag);
			// an inline #tag needs a non-digit.
			if l.Target == "" || strings.HasSuffix(l.Target, "/") || (l.Field == "" && strings.Trim(l.Target, "0123456789") == "") {
				t.Fatalf("link %d: bad tag %q", i, l.Target)
			}
			linkTags[strings.ToLower(l.Target)] = true
		}
		if l.Field != "" { // from the frontmatter
			if l.End > doc.BodyStart || (l.Kind != LinkTag && l.Kind != LinkFrontmatter) {
				t.Fatalf("frontmatter link %d %+v outside the frontmatter (body at %d) or of a body kind", i, l, doc.BodyStart)
			}
			continue
		}
		if l.Start < doc.BodyStart {
			t.Fatalf("body link %d %+v starts before the body (%d)", i, l, doc.BodyStart)
		}
		wiki := false
		switch l.Kind {
		case LinkWiki:
			wiki = true
			if !strings.HasPrefix(text, "[[") || !strings.HasSuffix(text, "]]") {
				t.Fatalf("wikilink %d span %q", i, text)
			}
		case LinkEmbed: // ![[wiki]] or a Markdown image ![alt](dest), whose alt may start with '['
			wiki = strings.HasPrefix(text, "![[") && strings.HasSuffix(text, "]]")
			if !strings.HasPrefix(text, "![") {
				t.Fatalf("embed %d span %q", i, text)
			}
		case LinkMarkdown:
			if !strings.HasPrefix(text, "[") {
				t.Fatalf("markdown link %d span %q", i, text)
			}
		case LinkTag:
			if text != "#"+l.Target {
				t.Fatalf("tag %d span %q, target %q", i, text, l.Target)
			}
		default:
			t.Fatalf("body link %d has kind %v", i, l.Kind)
		}
		if l.Kind == LinkWiki || l.Kind == LinkEmbed || l.Kind == LinkMarkdown {
			if l.Target == "" && l.Heading == "" && l.Block == "" {
				t.Fatalf("link %d %q has no target", i, text)
			}
		}
		if wiki {
			if strings.ContainsAny(text, "\n") {
				t.Fatalf("wikilink %d spans lines: %q", i, text)
			}
			if l.Start < lastWikiEnd {
				t.Fatalf("wikilink %d %q overlaps the previous one", i, text)
			}
			lastWikiEnd = l.End
		}
	}
	docTags := map[string]bool{}
	for _, tag := range doc.Tags {
		docTags[strings.ToLower(tag)] = true
	}
	if len(docTags) != len(linkTags) {
		t.Fatalf("Tags %q but tag links %v", doc.Tags, linkTags)
	}
	for tag := range docTags {
		if !linkTags[tag] {
			t.Fatalf("Tags %q but tag links %v", doc.Tags, linkTags)
		}
	}
}
