package index

import (
	"slices"
	"strings"
	"time"

	"github.com/ragd/ragd/index/segment"
)

// MetaFilter returns a Filter admitting the documents that carry every one
// of tags (case-insensitive; "a" also matches nested "a/b") and were
// modified in [after, before) (zero times are open ends). It returns nil
// when there is nothing to filter on. Each call looks the note up in the
// segments; nothing is computed for the notes a search never reaches.
func (s *Store) MetaFilter(tags []string, after, before time.Time) Filter {
	if len(tags) == 0 && after.IsZero() && before.IsZero() {
		return nil
	}
	want := make([]string, len(tags))
	for i, t := range tags {
		want[i] = strings.ToLower(strings.TrimPrefix(t, "#"))
	}
	return func(vault, path string) bool {
		v := s.view()
		defer v.Release()
		r, ok := s.findNote(v, vault, path)
		if !ok {
			return false
		}
		in := v.Info(r, false)
		if !after.IsZero() && in.MTime < after.Unix() || !before.IsZero() && in.MTime >= before.Unix() {
			return false
		}
		return hasTags(in.Tags, want)
	}
}

// findNote locates vault/path's note in v: by its derived id, probing as
// lookupID does on the (astronomically rare) id collision.
func (s *Store) findNote(v *segment.View, vault, path string) (segment.Ref, bool) {
	for probe := range 4 {
		r, ok := v.Find(uint64(docIDFor(vault, path, probe)))
		if !ok {
			return segment.Ref{}, false
		}
		in := v.Info(r, false)
		if in.Vault == vault && in.Path == path {
			return r, true
		}
	}
	return segment.Ref{}, false
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
