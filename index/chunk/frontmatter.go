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

// parseFrontmatter decodes the YAML text into the meta map and the
// scalar properties. Malformed YAML, an empty document or a non-mapping
// yields nil, nil.
func parseFrontmatter(y []byte) (meta map[string]any, props []Property) {
	if isBlank(y) {
		return nil, nil
	}
	if meta, props, ok := simpleFrontmatter(y); ok {
		return meta, props
	}
	return yamlFrontmatter(y)
}

// yamlFrontmatter is parseFrontmatter through yaml.v3.
func yamlFrontmatter(y []byte) (meta map[string]any, props []Property) {
	defer func() {
		if recover() != nil { // yaml.v3 must never take the daemon down
			meta, props = nil, nil
		}
	}()
	var root yaml.Node
	if err := yaml.Unmarshal(y, &root); err != nil || len(root.Content) != 1 || root.Content[0].Kind != yaml.MappingNode {
		return nil, nil
	}
	var m map[string]any
	if err := root.Content[0].Decode(&m); err != nil || len(m) == 0 {
		return nil, nil
	}
	return m, properties(root.Content[0])
}

// properties lists the scalar and list-of-scalar values of a mapping node
// in source order, as written.
func properties(mapping *yaml.Node) []Property {
	var out []Property
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		k, v := mapping.Content[i], resolveAlias(mapping.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if vals := scalarValues(v, nil); len(vals) > 0 {
			out = append(out, Property{Key: k.Value, Values: vals})
		}
	}
	return out
}

// scalarValues appends the non-empty, non-null scalars of n (a scalar or
// a sequence, nested sequences flattened; mappings skipped).
func scalarValues(n *yaml.Node, out []string) []string {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag != "!!null" {
			if v := strings.TrimSpace(n.Value); v != "" {
				out = append(out, v)
			}
		}
	case yaml.SequenceNode:
		for _, c := range n.Content {
			if c = resolveAlias(c); c.Kind != yaml.MappingNode {
				out = scalarValues(c, out)
			}
		}
	}
	return out
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for depth := 0; n.Kind == yaml.AliasNode && n.Alias != nil && depth < 8; depth++ {
		n = n.Alias
	}
	return n
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
