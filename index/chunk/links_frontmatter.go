package chunk

import (
	"bytes"
	"slices"
	"sort"
	"strings"
)

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
