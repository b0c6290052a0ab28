package chunk

import (
	"bytes"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// LinkKind says what kind of reference a Link is.
type LinkKind uint8

// Link kinds.
const (
	LinkWiki        LinkKind = iota + 1 // [[Note]], [[Note|alias]], [[Note#Heading]], [[Note#^block]], [[#Heading]] (same note)
	LinkEmbed                           // ![[Note]], ![[Note#Heading]], ![[image.png]], ![alt](image.png)
	LinkMarkdown                        // [text](Other%20Note.md), [text](sub/Note.md#heading): local targets only
	LinkTag                             // #tag, #a/b (inline, outside code) and frontmatter tags
	LinkFrontmatter                     // a frontmatter value (or list item) holding a wikilink "[[Note]]"; Field is the key
)

var linkKindNames = [...]string{"", "wiki", "embed", "markdown", "tag", "frontmatter"}

// String returns "wiki", "embed", "markdown", "tag" or "frontmatter".
func (k LinkKind) String() string {
	if int(k) < len(linkKindNames) && k != 0 {
		return linkKindNames[k]
	}
	return "LinkKind(" + strconv.Itoa(int(k)) + ")"
}

// Link is one link-like reference of a note.
type Link struct {
	Kind LinkKind
	// Target is the note name or path as written, without #fragment,
	// |alias or leading '!' and without ".md" normalisation; Markdown link
	// paths are URL-decoded ("Other Note.md"). For tags it is the tag
	// without '#'. It is "" for same-note wikilinks such as [[#Heading]].
	Target string
	// Heading is the part after '#' unless it is a block reference.
	Heading string
	// Block is the block id of [[Note#^id]].
	Block string
	// Alias is the display text after '|' (wikilinks) or the link text or
	// image alt text (Markdown links).
	Alias string
	// Field is the frontmatter key of LinkFrontmatter links and of
	// frontmatter tags; "" for links in the body.
	Field string
	// Start and End are the byte span of the whole reference in the source:
	// "[[...]]" including brackets (and the '!' of an embed), "[text](dest)"
	// or "![alt](dest)", "#tag" including '#'. For frontmatter links it is
	// the (trimmed) frontmatter line holding the value, best effort.
	Start, End int
}

// ---------------------------------------------------------------------------
// Body links

// rng is a byte range [s, e) of the body.
type rng struct{ s, e int }

// linkScanner collects the links and inline #tags of a Markdown body in one
// walk over the goldmark AST. Leaf blocks with inline content (paragraphs,
// headings, list text) are processed one at a time: the inline walk records
// code spans, raw HTML and autolinks (which hide everything inside them),
// text segments (for #tags) and Markdown links; then the block's raw
// source lines are scanned for wikilinks, which goldmark does not parse.
type linkScanner struct {
	body  []byte
	base  int // offset of body in the source
	tags  *tagSet
	links []Link // absolute offsets

	// per-block scratch, body offsets
	lines *text.Segments
	excl  []rng
	texts []text.Segment
	mds   []Link
	wiki  []rng
}

// collectLinks walks the parsed body and appends its links to links (in
// source order, offsets into the whole source) and its inline #tags to tags.
func collectLinks(root ast.Node, body []byte, base int, tags *tagSet, links []Link, s *scratch) []Link {
	// Room for the links there may be, rather than growing the slice
	// one doubling at a time.
	if n := bytes.Count(body, []byte("[[")) + bytes.Count(body, []byte("](")) + bytes.Count(body, []byte("#")); n > 0 {
		links = slices.Grow(links, min(n, len(body)/4+1))
	}
	sc := linkScanner{body: body, base: base, tags: tags, links: links,
		excl: s.excl, texts: s.texts, mds: s.mds, wiki: s.wiki}
	sc.walk(root)
	s.excl, s.texts, s.mds, s.wiki = sc.excl, sc.texts, sc.mds, sc.wiki
	return sc.links
}

func (sc *linkScanner) walk(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c.Kind() {
		case ast.KindParagraph, ast.KindHeading, ast.KindTextBlock:
			sc.block(c)
		case ast.KindFencedCodeBlock, ast.KindCodeBlock, ast.KindHTMLBlock,
			ast.KindLinkReferenceDefinition, ast.KindThematicBreak:
			// no links in code, HTML or reference definitions
		default:
			if c.Type() == ast.TypeBlock {
				sc.walk(c) // lists, list items, block quotes
			}
		}
	}
}

func (sc *linkScanner) block(n ast.Node) {
	sc.excl, sc.texts, sc.mds, sc.wiki = sc.excl[:0], sc.texts[:0], sc.mds[:0], sc.wiki[:0]
	sc.lines = n.Lines()
	sc.inline(n)
	if _, plain := n.(*plainParagraph); plain { // its text is its lines (plain.go)
		for i := 0; i < sc.lines.Len(); i++ {
			sc.texts = append(sc.texts, sc.lines.At(i))
		}
	}
	if !slices.IsSortedFunc(sc.excl, func(a, b rng) int { return a.s - b.s }) {
		slices.SortFunc(sc.excl, func(a, b rng) int { return a.s - b.s })
	}
	mark := len(sc.links)
	k := 0
	for i := 0; i < sc.lines.Len(); i++ {
		seg := sc.lines.At(i)
		k = sc.wikilinks(seg.Start, min(seg.Stop, len(sc.body)), k)
	}
	for _, seg := range sc.texts {
		sc.scanTags(seg.Start, seg.Stop)
	}
	for _, l := range sc.mds {
		if !sc.inWiki(l.Start, l.End) {
			l.Start += sc.base
			l.End += sc.base
			sc.add(l)
		}
	}
	if len(sc.links)-mark > 1 {
		slices.SortStableFunc(sc.links[mark:], func(a, b Link) int { return a.Start - b.Start })
	}
}

// add appends l, starting with room for a typical note's links rather
// than growing the slice one step at a time.
func (sc *linkScanner) add(l Link) {
	if cap(sc.links) == 0 {
		sc.links = make([]Link, 0, 16)
	}
	sc.links = append(sc.links, l)
}

// inline records the code spans, raw HTML, autolinks, text segments and
// Markdown links below n.
func (sc *linkScanner) inline(n ast.Node) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			sc.texts = append(sc.texts, c.Segment)
		case *ast.CodeSpan:
			sc.excl = append(sc.excl, sc.codeSpan(c))
		case *ast.RawHTML:
			if c.Segments.Len() > 0 {
				sc.excl = append(sc.excl, rng{c.Segments.At(0).Start, c.Segments.At(c.Segments.Len() - 1).Stop})
			}
		case *ast.AutoLink:
			if s := c.Pos(); s >= 0 && s < len(sc.body) {
				e := len(sc.body)
				if j := bytes.IndexByte(sc.body[s:], '>'); j >= 0 {
					e = s + j + 1
				}
				sc.excl = append(sc.excl, rng{s, e})
			}
		case *ast.Link:
			sc.markdownLink(c, c.Destination, c.Reference, false)
			sc.inline(c)
		case *ast.Image:
			sc.markdownLink(c, c.Destination, c.Reference, true)
			sc.inline(c)
		default:
			sc.inline(c)
		}
	}
}

// codeSpan returns the range of a code span including its backticks.
func (sc *linkScanner) codeSpan(c *ast.CodeSpan) rng {
	b := sc.body
	s := c.Pos()
	if s < 0 || s >= len(b) {
		s = 0
		if t, ok := c.FirstChild().(*ast.Text); ok {
			s = t.Segment.Start
		}
	}
	n := 0
	for s+n < len(b) && b[s+n] == '`' {
		n++
	}
	i := s + n
	if t, ok := c.LastChild().(*ast.Text); ok && t.Segment.Stop > i {
		i = t.Segment.Stop
	}
	for i < len(b) { // the closing run of exactly n backticks
		j := bytes.IndexByte(b[i:], '`')
		if j < 0 {
			return rng{s, len(b)}
		}
		i += j
		r := 0
		for i+r < len(b) && b[i+r] == '`' {
			r++
		}
		if r == n || n == 0 {
			return rng{s, i + r}
		}
		i += r
	}
	return rng{s, len(b)}
}

// wikilinks scans body[s:e] (one line of the block) for wikilinks outside
// the exclusions from index k on, and returns the updated index.
func (sc *linkScanner) wikilinks(s, e, k int) int {
	b := sc.body
	for i := s; i < e; {
		ws, we := findWikilink(b, i, e)
		if ws < 0 {
			break
		}
		for k < len(sc.excl) && sc.excl[k].e <= ws {
			k++
		}
		if k < len(sc.excl) && sc.excl[k].s < we && !sc.codeInside(k, ws, we) { // in or across code/HTML
			if sc.excl[k].s <= ws {
				i = sc.excl[k].e
			} else {
				i = ws + 1
			}
			continue
		}
		if escaped(b, s, ws) {
			i = ws + 1
			continue
		}
		l, ok := parseWikilink(string(b[ws+2 : we-2]))
		if !ok {
			i = ws + 1
			continue
		}
		l.Kind = LinkWiki
		if ws > s && b[ws-1] == '!' && !escaped(b, s, ws-1) {
			l.Kind = LinkEmbed
			ws--
		}
		l.Start, l.End = sc.base+ws, sc.base+we
		sc.add(l)
		sc.wiki = append(sc.wiki, rng{ws, we})
		i = we
	}
	return k
}

// codeInside reports whether the exclusions from index k that overlap
// [ws, we) all lie strictly inside it: Obsidian reads [[Note|`code`]] and
// [[Note#`heading`]] as links, the wikilink syntax winning over code spans
// that open after the "[[".
func (sc *linkScanner) codeInside(k, ws, we int) bool {
	for ; k < len(sc.excl) && sc.excl[k].s < we; k++ {
		if sc.excl[k].s <= ws+1 || sc.excl[k].e > we-2 {
			return false
		}
	}
	return true
}

// escaped reports whether b[i] is preceded by an odd number of backslashes
// (not looking before s).
func escaped(b []byte, s, i int) bool {
	n := 0
	for j := i - 1; j >= s && b[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// findWikilink returns the offsets of the first "[[" in b[i:e] that is
// closed by "]]" with no bracket or line break in between, and the offset
// just past the "]]"; -1, -1 if there is none.
func findWikilink(b []byte, i, e int) (int, int) {
	for i < e {
		k := bytes.Index(b[i:e], []byte("[["))
		if k < 0 {
			return -1, -1
		}
		s := i + k
		j := s + 2
		for j < e && b[j] != '[' && b[j] != ']' && b[j] != '\n' {
			j++
		}
		switch {
		case j+1 < e && b[j] == ']' && b[j+1] == ']':
			return s, j + 2
		case j >= e:
			return -1, -1 // no bracket left at all
		case b[j] == '\n':
			i = j + 1
		default:
			i = s + 1
		}
	}
	return -1, -1
}

// parseWikilink splits the inside of [[...]]: target, then '#heading' or
// '#^block', then '|alias' ('\|' in tables). The result has no Kind or span.
func parseWikilink(inner string) (Link, bool) {
	var l Link
	if p := strings.IndexByte(inner, '|'); p >= 0 {
		l.Alias = strings.TrimSpace(inner[p+1:])
		inner = strings.TrimSuffix(inner[:p], `\`)
	}
	if h := strings.IndexByte(inner, '#'); h >= 0 {
		frag := strings.TrimSpace(inner[h+1:])
		if rest, ok := strings.CutPrefix(frag, "^"); ok {
			l.Block = strings.TrimSpace(rest)
		} else {
			l.Heading = frag
		}
		inner = inner[:h]
	}
	l.Target = strings.TrimSpace(inner)
	return l, l.Target != "" || l.Heading != "" || l.Block != ""
}

// inWiki reports whether [s, e) (body offsets) overlaps a wikilink of the
// current block.
func (sc *linkScanner) inWiki(s, e int) bool {
	w := sc.wiki
	if len(w) == 0 {
		return false
	}
	i := sort.Search(len(w), func(i int) bool { return w[i].e > s })
	return i < len(w) && w[i].s < e
}

// scanTags finds the #tags starting in body[s:e]. A tag starts at the
// start of a line or after whitespace or '(' and consists of letters,
// digits, '_', '-' and '/'; trailing '/' are not part of it and it must
// contain a non-digit. Tags inside wikilinks (e.g. in an alias) are not
// tags.
func (sc *linkScanner) scanTags(s, e int) {
	b := sc.body
	for i := s; i < e; i++ {
		k := bytes.IndexByte(b[i:e], '#')
		if k < 0 {
			return
		}
		if i += k; !sc.tagStart(i) {
			continue
		}
		j := i + 1
		for j < len(b) {
			r, size := utf8.DecodeRune(b[j:])
			if r != '_' && r != '-' && r != '/' && !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsDigit(r) {
				break
			}
			j += size
		}
		next := j
		for j > i+1 && b[j-1] == '/' {
			j--
		}
		if j > i+1 && !allDigits(b[i+1:j]) && !sc.inWiki(i, j) {
			tag := string(b[i+1 : j])
			sc.tags.add(tag)
			sc.add(Link{Kind: LinkTag, Target: tag, Start: sc.base + i, End: sc.base + j})
		}
		i = next - 1
	}
}

// tagStart reports whether a '#' at body offset i may start a tag.
func (sc *linkScanner) tagStart(i int) bool {
	if i == 0 {
		return true
	}
	if c := sc.body[i-1]; isSpace(c) || c == '(' {
		return true
	}
	ls := sc.lines
	k := sort.Search(ls.Len(), func(k int) bool { return ls.At(k).Start >= i })
	return k < ls.Len() && ls.At(k).Start == i
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
