package config

import (
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Match reports whether the file rel (slash-separated, relative to the vault
// root) belongs to the vault: it matches an Include pattern, matches no
// Exclude pattern, and lies in no excluded directory (see ExcludedDir).
// Patterns are doublestar patterns, so "*.pdf" matches only at the root and
// "**/*.pdf" everywhere.
func (v Vault) Match(rel string) bool {
	rel, ok := cleanRel(rel)
	if !ok {
		return false
	}
	if !anyMatch(v.Include, rel) || anyMatch(v.Exclude, rel) {
		return false
	}
	if dir := path.Dir(rel); dir != "." && v.ExcludedDir(dir) {
		return false
	}
	return true
}

// ExcludedDir reports whether the directory rel (slash-separated, relative
// to the vault root) and everything below it is excluded, so walkers can
// skip it. That is the case when rel or one of its parents is named like a
// default-excluded directory (.obsidian, .git, .trash, node_modules; at any
// depth), matches an Exclude pattern itself (as in .gitignore, "drafts/*"
// excludes drafts/old/ too), or is matched by the prefix of an Exclude
// pattern ending in "/**".
func (v Vault) ExcludedDir(rel string) bool {
	rel, ok := cleanRel(rel)
	if !ok {
		return false // the root itself is never excluded
	}
	for i := 0; i <= len(rel); i++ {
		if i < len(rel) && rel[i] != '/' {
			continue
		}
		dir := rel[:i] // rel and each of its parents
		if slices.Contains(defaultExcludedDirs, path.Base(dir)) || anyMatch(v.Exclude, dir) {
			return true
		}
		for _, p := range v.Exclude {
			if prefix, ok := strings.CutSuffix(p, "/**"); ok && match(prefix, dir) {
				return true
			}
		}
	}
	return false
}

// cleanRel normalises a relative slash path; ok is false for the root and
// for paths that leave the vault.
func cleanRel(rel string) (string, bool) {
	rel = path.Clean(rel)
	if rel == "." || rel == ".." || strings.HasPrefix(rel, "/") || strings.HasPrefix(rel, "../") {
		return rel, false
	}
	return rel, true
}

func anyMatch(patterns []string, name string) bool {
	for _, p := range patterns {
		if match(p, name) {
			return true
		}
	}
	return false
}

// match is doublestar.Match with invalid patterns matching nothing (Parse
// rejects them, but a Vault may be built by hand). A scan matches every
// file against every pattern, so the usual shapes are answered without the
// matcher: "**/*.ext" is a suffix, a literal pattern a comparison, and a
// name without a pattern's literal head cannot match it.
func match(pattern, name string) bool {
	if ext, ok := strings.CutPrefix(pattern, "**/*"); ok && !strings.ContainsAny(ext, globMeta+"/") {
		return strings.HasSuffix(name, ext)
	}
	switch i := strings.IndexAny(pattern, globMeta); {
	case i < 0:
		return pattern == name
	case !strings.HasPrefix(name, strings.TrimSuffix(pattern[:i], "/")): // "x/**" matches "x"
		return false
	}
	ok, err := doublestar.Match(pattern, name)
	return ok && err == nil
}

// globMeta are the characters with a meaning in a doublestar pattern.
const globMeta = "*?[{\\"
