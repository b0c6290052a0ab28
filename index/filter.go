package index

import (
	"slices"
	"strings"
	"time"
)

// MetaFilter returns a Filter admitting the documents that carry every one
// of tags (case-insensitive; "a" also matches nested "a/b") and were
// modified in [after, before) (zero times are open ends). It returns nil
// when there is nothing to filter on. The set is computed once, from
// memory.
func (s *Store) MetaFilter(tags []string, after, before time.Time) Filter {
	if len(tags) == 0 && after.IsZero() && before.IsZero() {
		return nil
	}
	want := make([]string, len(tags))
	for i, t := range tags {
		want[i] = strings.ToLower(strings.TrimPrefix(t, "#"))
	}
	m := s.mem
	m.mu.RLock()
	ok := make(map[[2]string]bool)
	for _, d := range m.docs {
		if !after.IsZero() && d.mtime < after.Unix() {
			continue
		}
		if !before.IsZero() && d.mtime >= before.Unix() {
			continue
		}
		if !hasTags(d.tags, want) {
			continue
		}
		ok[[2]string{d.vault, d.path}] = true
	}
	m.mu.RUnlock()
	return func(vault, path string) bool { return ok[[2]string{vault, path}] }
}

func hasTags(have, want []string) bool {
	for _, w := range want {
		if !slices.ContainsFunc(have, func(h string) bool {
			h = strings.ToLower(strings.TrimPrefix(h, "#"))
			return h == w || strings.HasPrefix(h, w+"/")
		}) {
			return false
		}
	}
	return true
}

// And combines filters; nil filters admit everything.
func And(fs ...Filter) Filter {
	var live []Filter
	for _, f := range fs {
		if f != nil {
			live = append(live, f)
		}
	}
	switch len(live) {
	case 0:
		return nil
	case 1:
		return live[0]
	}
	return func(vault, path string) bool {
		for _, f := range live {
			if !f(vault, path) {
				return false
			}
		}
		return true
	}
}
