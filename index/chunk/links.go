package chunk

import (
	"bytes"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
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
func collectLinks(root ast.Node, body []byte, base int, tags *tagSet, links []Link) []Link {
	sc := linkScanner{body: body, base: base, tags: tags, links: links}
	sc.walk(root)
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

// markdownLink records a Markdown link or image with a local destination.
func (sc *linkScanner) markdownLink(n ast.Node, dest []byte, ref *ast.ReferenceLink, image bool) {
	b := sc.body
	start := n.Pos()
	if start < 0 || start >= len(b) || len(dest) == 0 {
		return
	}
	l, ok := localLink(dest)
	if !ok {
		return
	}
	l.Kind = LinkMarkdown
	label := start
	if image {
		l.Kind = LinkEmbed
		label++
	}
	l.Start, l.End = start, sc.linkEnd(label, dest, ref)
	l.Alias = strings.Join(strings.Fields(string(appendInlineText(nil, n, b))), " ")
	sc.mds = append(sc.mds, l)
}

// localLink decodes a link destination that points into the vault: no
// scheme, not "//host", not a bare "#fragment".
func localLink(dest []byte) (Link, bool) {
	var l Link
	d := string(dest)
	if bytes.IndexByte(dest, '\\') >= 0 || bytes.IndexByte(dest, '&') >= 0 {
		d = string(util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(dest))))
	}
	if d == "" || d[0] == '#' || strings.HasPrefix(d, "//") || hasScheme(d) {
		return l, false
	}
	path, frag, _ := strings.Cut(d, "#")
	l.Target = strings.TrimSpace(unescapeURL(path))
	if l.Target == "" {
		return l, false
	}
	frag = unescapeURL(frag)
	if rest, ok := strings.CutPrefix(frag, "^"); ok {
		l.Block = rest
	} else {
		l.Heading = frag
	}
	return l, true
}

func unescapeURL(s string) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// hasScheme reports whether s starts with a URL scheme such as "https:",
// "mailto:" or "obsidian:".
func hasScheme(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':':
			return i > 0
		default:
			return false
		}
	}
	return false
}

// linkEnd returns the body offset just past a Markdown link whose label
// opens with '[' at label. goldmark does not record where a link ends, so
// the end is found from the destination (a slice of the body for inline
// links) or the reference label.
func (sc *linkScanner) linkEnd(label int, dest []byte, ref *ast.ReferenceLink) int {
	b := sc.body
	if ref != nil {
		v := ref.Value
		switch ref.Type {
		case ast.ReferenceLinkShortcut: // [label]
			if e := label + len(v) + 2; e <= len(b) && b[e-1] == ']' && bytes.Equal(b[label+1:e-1], v) {
				return e
			}
		case ast.ReferenceLinkCollapsed: // [label][]
			if e := label + len(v) + 4; e <= len(b) && string(b[e-3:e]) == "][]" && bytes.Equal(b[label+1:e-3], v) {
				return e
			}
		default: // [text][label]
			for i := label + 1; i < len(b); {
				j := bytes.Index(b[i:], []byte("]["))
				if j < 0 {
					break
				}
				i += j + 2
				if e := i + len(v) + 1; e <= len(b) && b[e-1] == ']' && bytes.Equal(b[i:e-1], v) {
					return e
				}
			}
		}
		return fallbackEnd(b, label+1, ']')
	}
	off := subsliceOffset(b, dest)
	if off < 0 {
		i := label + 1
		if j := bytes.Index(b[i:], []byte("](")); j >= 0 {
			i += j + 2
		}
		return fallbackEnd(b, i, ')')
	}
	p := off + len(dest)
	if off > 0 && b[off-1] == '<' && p < len(b) && b[p] == '>' {
		p++
	}
	p = skipSpace(b, p, len(b))
	if p < len(b) && (b[p] == '"' || b[p] == '\'' || b[p] == '(') { // title
		closer := b[p]
		if closer == '(' {
			closer = ')'
		}
		q := p + 1
		for q < len(b) && b[q] != closer {
			if b[q] == '\\' {
				q++
			}
			q++
		}
		p = skipSpace(b, min(q+1, len(b)), len(b))
	}
	if p < len(b) && b[p] == ')' {
		return p + 1
	}
	return fallbackEnd(b, off+len(dest), ')')
}

// fallbackEnd returns the offset just past the first c at or after i on the
// same line, else the end of that line's content.
func fallbackEnd(b []byte, i int, c byte) int {
	i = min(i, len(b))
	e := len(b)
	if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
		e = i + j
	}
	if j := bytes.IndexByte(b[i:e], c); j >= 0 {
		return i + j + 1
	}
	for e > i && isSpace(b[e-1]) {
		e--
	}
	return e
}

// subsliceOffset returns the offset of sub in b if sub is a slice of b's
// backing array inside b, else -1.
func subsliceOffset(b, sub []byte) int {
	if len(sub) == 0 {
		return -1
	}
	off := cap(b) - cap(sub)
	if off < 0 || off+len(sub) > len(b) || &b[off] != &sub[0] {
		return -1
	}
	return off
}

// ---------------------------------------------------------------------------
// Frontmatter links

// frontmatterTags returns the tags of a frontmatter `tags` value (a list or
// a string of tags separated by commas or whitespace), without '#' or
// trailing '/'.
func frontmatterTags(v any) []string {
	var out []string
	for _, s := range stringList(v) {
		for _, f := range strings.FieldsFunc(s, func(r rune) bool {
			return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r'
		}) {
			if t := strings.TrimRight(strings.TrimLeft(f, "#"), "/"); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

// fmKey is a top-level frontmatter key and the lines it spans.
type fmKey struct {
	name       []byte
	line, next int // start of the key's line; start of the next key's line (or the YAML end)
	value      int // where the key's value starts (after the ':')
}

// frontmatterLinks adds the frontmatter tags (`tags`, then `tag`) to tags
// and returns them as LinkTag links together with the wikilink-valued fields
// (LinkFrontmatter) of the parsed frontmatter meta of the YAML text
// src[ys:ye], in source order. Spans are the frontmatter lines that hold
// the values, found by searching the YAML text (best effort).
func frontmatterLinks(src []byte, ys, ye int, meta map[string]any, tags *tagSet) []Link {
	if len(meta) == 0 {
		return nil
	}
	keys := frontmatterKeys(src, ys, ye)
	find := func(name string) fmKey {
		for _, k := range keys {
			if string(k.name) == name {
				return k
			}
		}
		return fmKey{line: -1}
	}
	var links []Link
	for _, name := range [...]string{"tags", "tag"} {
		v, ok := meta[name]
		if !ok {
			continue
		}
		key := find(name)
		cur := key.value
		for _, t := range frontmatterTags(v) {
			tags.add(t)
			l := Link{Kind: LinkTag, Target: t, Field: name}
			l.Start, l.End, cur = locateValue(src, ys, ye, key, cur, t)
			links = append(links, l)
		}
	}
	var strs []string
	for name, v := range meta {
		switch name {
		case "tags", "tag", "aliases", "alias":
			continue
		}
		if strs = wikiStrings(v, strs[:0]); len(strs) == 0 {
			continue
		}
		key := find(name)
		cur := key.value
		for _, s := range strs {
			for i := 0; i < len(s); {
				ws, we := findWikilink([]byte(s), i, len(s))
				if ws < 0 {
					break
				}
				l, ok := parseWikilink(s[ws+2 : we-2])
				if !ok {
					i = ws + 1
					continue
				}
				l.Kind, l.Field = LinkFrontmatter, name
				l.Start, l.End, cur = locateValue(src, ys, ye, key, cur, s[ws:we])
				links = append(links, l)
				i = we
			}
		}
	}
	if len(links) > 1 {
		slices.SortStableFunc(links, func(a, b Link) int { // map order is random
			if a.Start != b.Start {
				return a.Start - b.Start
			}
			return strings.Compare(a.Field, b.Field)
		})
	}
	return links
}

// wikiStrings appends the strings of a frontmatter value that may hold
// wikilinks: scalars, list items and nested values. An unquoted
// `up: [[Home]]`, which YAML reads as a list holding a list, counts as the
// string "[[Home]]".
func wikiStrings(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		if strings.Contains(v, "[[") {
			out = append(out, v)
		}
	case []any:
		if len(v) == 1 {
			if in, ok := v[0].([]any); ok && len(in) == 1 {
				if s, ok := in[0].(string); ok {
					return append(out, "[["+s+"]]")
				}
			}
		}
		for _, e := range v {
			out = wikiStrings(e, out)
		}
	case map[string]any:
		ks := make([]string, 0, len(v))
		for k := range v {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			out = wikiStrings(v[k], out)
		}
	}
	return out
}

// frontmatterKeys finds the top-level keys of the YAML text src[ys:ye]:
// lines that start in column 0 with a (possibly quoted) key and ':'.
func frontmatterKeys(src []byte, ys, ye int) []fmKey {
	var keys []fmKey
	for ls := ys; ls < ye; {
		le := ye
		if j := bytes.IndexByte(src[ls:ye], '\n'); j >= 0 {
			le = ls + j
		}
		line := src[ls:le]
		if len(line) > 0 && !isSpace(line[0]) && line[0] != '#' && line[0] != '-' {
			name, rest := line, 0
			if c := line[0]; c == '"' || c == '\'' {
				if j := bytes.IndexByte(line[1:], c); j >= 0 {
					name, rest = line[1:j+1], j+2
				}
			}
			colon := len(line)
			if j := bytes.IndexByte(line[rest:], ':'); j >= 0 {
				colon = rest + j
				if rest == 0 {
					name = bytes.TrimSpace(line[:j])
				}
			}
			if len(keys) > 0 {
				keys[len(keys)-1].next = ls
			}
			keys = append(keys, fmKey{name: name, line: ls, next: ye, value: ls + min(colon+1, len(line))})
		}
		ls = le + 1
	}
	return keys
}

// locateValue returns the trimmed span of the frontmatter line holding the
// first occurrence of value in key's lines at or after cur, and the offset
// to search from for the key's next value. Without a match it returns the
// key's line, and without a key line the whole YAML text.
func locateValue(src []byte, ys, ye int, key fmKey, cur int, value string) (int, int, int) {
	if key.line < 0 {
		s, e := trim(src, ys, ye)
		if s >= e {
			s, e = ys, max(ye, ys+1)
		}
		return s, e, cur
	}
	at := key.line
	if j := bytes.Index(src[cur:key.next], []byte(value)); j >= 0 {
		at = cur + j
		cur = at + len(value)
	}
	ls := bytes.LastIndexByte(src[:at], '\n') + 1
	le := key.next
	if j := bytes.IndexByte(src[at:key.next], '\n'); j >= 0 {
		le = at + j
	}
	s, e := trim(src, max(ls, ys), le)
	return s, e, cur
}
