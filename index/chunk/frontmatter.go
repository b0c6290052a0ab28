package chunk

import (
	"bytes"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

var bom = []byte{0xEF, 0xBB, 0xBF}

// bomLen returns 3 if src starts with a UTF-8 byte order mark, else 0.
func bomLen(src []byte) int {
	if bytes.HasPrefix(src, bom) {
		return 3
	}
	return 0
}

// findFrontmatter looks for a YAML frontmatter block starting at offset off
// (just after an optional BOM): a first line that is exactly "---" and a
// later line that is "---" or "..." (trailing spaces and '\r' ignored on the
// closing line). It returns the YAML text range [ys, ye) and the offset where
// the body starts; ok is false if there is no frontmatter.
func findFrontmatter(src []byte, off int) (ys, ye, body int, ok bool) {
	rest := src[off:]
	switch {
	case bytes.HasPrefix(rest, []byte("---\n")):
		ys = off + 4
	case bytes.HasPrefix(rest, []byte("---\r\n")):
		ys = off + 5
	default:
		return 0, 0, 0, false
	}
	for ls := ys; ls < len(src); {
		le := len(src) // end of line content
		next := len(src)
		if j := bytes.IndexByte(src[ls:], '\n'); j >= 0 {
			le, next = ls+j, ls+j+1
		}
		line := bytes.TrimRight(src[ls:le], " \t\r")
		if len(line) == 3 && (string(line) == "---" || string(line) == "...") {
			return ys, ls, next, true
		}
		ls = next
	}
	return 0, 0, 0, false
}

// parseFrontmatter decodes the YAML text. Malformed YAML, an empty document
// or a non-mapping yields nil.
func parseFrontmatter(y []byte) (meta map[string]any) {
	if isBlank(y) {
		return nil
	}
	defer func() {
		if recover() != nil { // yaml.v3 must never take the daemon down
			meta = nil
		}
	}()
	var m map[string]any
	if err := yaml.Unmarshal(y, &m); err != nil || len(m) == 0 {
		return nil
	}
	return m
}

// applyMeta fills Title and Aliases from the frontmatter; the tags are
// added by frontmatterLinks, which also records them as links.
func (d *Document) applyMeta() {
	m := d.Meta
	if m == nil {
		return
	}
	switch t := m["title"].(type) {
	case nil, []any, map[string]any:
		// absent or not a scalar
	default:
		d.Title = strings.TrimSpace(scalarString(t))
	}
	for _, key := range [...]string{"aliases", "alias"} {
		for _, s := range stringList(m[key]) {
			if s = strings.TrimSpace(s); s != "" {
				d.Aliases = append(d.Aliases, s)
			}
		}
	}
}

// stringList turns a YAML scalar or sequence into strings.
func stringList(v any) []string {
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if e == nil {
				continue
			}
			if _, nested := e.([]any); nested {
				out = append(out, stringList(e)...)
				continue
			}
			if _, isMap := e.(map[string]any); isMap {
				continue
			}
			out = append(out, scalarString(e))
		}
		return out
	case map[string]any:
		return nil
	default:
		return []string{scalarString(v)}
	}
}

func scalarString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// tagSet collects tags in first-seen order, deduplicated case-insensitively.
type tagSet struct {
	list []string
	seen map[string]struct{}
}

func (t *tagSet) add(tag string) {
	tag = strings.TrimRight(strings.TrimSpace(tag), "/")
	if tag == "" {
		return
	}
	key := strings.ToLower(tag)
	if t.seen == nil {
		t.seen = make(map[string]struct{})
	}
	if _, dup := t.seen[key]; dup {
		return
	}
	t.seen[key] = struct{}{}
	t.list = append(t.list, tag)
}
