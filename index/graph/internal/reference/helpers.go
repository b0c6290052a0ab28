// Package reference is the entity graph as it was held before it was made
// compact (maps of strings and slices of relations): the tests of package
// graph build it from the same records and compare every query's answer.
package reference

import (
	"path"
	"strings"
)

func isTyped(key string) bool { return strings.HasPrefix(key, "@") }

// isAttachment is graph's (a link to a non-note file).
func isAttachment(target string) bool {
	ext := strings.ToLower(path.Ext(target))
	switch ext {
	case "", ".md", ".markdown", ".txt":
		return false
	}
	if len(ext) > 6 {
		return false
	}
	letter := false
	for _, c := range ext[1:] {
		switch {
		case c >= 'a' && c <= 'z':
			letter = true
		case c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return letter
}
