package chunk

import (
	"bytes"
	"net/url"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/util"
)

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
	if bytes.IndexByte(dest, '\\') >= 0 || bytes.IndexByte(dest, '&') >= 0 {
		dest = util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(dest)))
	}
	if len(dest) == 0 || dest[0] == '#' || bytes.HasPrefix(dest, []byte("//")) || hasScheme(dest) {
		return l, false // checked before making a string: most links are URLs
	}
	d := string(dest)
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
func hasScheme(s []byte) bool {
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
