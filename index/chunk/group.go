package chunk

// section is a heading and the content blocks up to the next heading, or
// the content before the first heading.
type section struct {
	head    *block // nil for content before the first heading
	content []block
	path    []string
	subst   int // substance of the content
	lo, hi  int // the section's blocks, heading included, in the body's blocks
}

func (s *section) start() int {
	if s.head != nil {
		return s.head.s
	}
	return s.content[0].s
}

func (s *section) end() int {
	if len(s.content) > 0 {
		return s.content[len(s.content)-1].e
	}
	return s.head.e
}

// sectionGroup is a run secs[from:to) of sections that become one retrieval
// unit; secs[main] gives its heading path.
type sectionGroup struct{ from, to, main int }

// groupSections merges sections that would make poor retrieval units into
// their neighbours:
//
//   - a section with a heading and no content merges forward into the
//     section that follows (usually its child);
//   - a tiny section (substance under minSubstance: a status line, a tags
//     line, a link or two) merges into the previous group if the result
//     fits in childChars bytes, else forward into the next section;
//   - what is still waiting at the end of the note joins the last group.
//
// The main section of a group is the one with the most substance (the
// first of equals). A note whose sections have no substance at all (only
// headings, tags or embeds) yields no groups. The groups are appended to
// out.
func groupSections(secs []section, childChars int, out []sectionGroup) []sectionGroup {
	pending := -1 // first section waiting to merge forward
	for i := range secs {
		s := &secs[i]
		if len(s.content) > 0 && s.subst < minSubstance {
			if n := len(out); n > 0 && s.end()-secs[out[n-1].from].start() <= childChars {
				out[n-1].to = i + 1
				pending = -1
				continue
			}
		}
		if len(s.content) == 0 || s.subst < minSubstance {
			if pending < 0 {
				pending = i
			}
			continue
		}
		from := i
		if pending >= 0 {
			from = pending
		}
		out = append(out, sectionGroup{from: from, to: i + 1})
		pending = -1
	}
	if pending >= 0 {
		if n := len(out); n > 0 {
			out[n-1].to = len(secs)
		} else {
			out = append(out, sectionGroup{from: pending, to: len(secs)})
		}
	}
	for gi := range out {
		g := &out[gi]
		g.main = g.from
		for k := g.from + 1; k < g.to; k++ {
			if secs[k].subst > secs[g.main].subst {
				g.main = k
			}
		}
		if secs[g.main].subst == 0 { // only possible for a note without substance
			return out[:gi]
		}
	}
	return out
}

// headings finds the heading paths a range of a group covers.
type headings struct {
	secs  []section
	nlead int        // sections before the first with content: they head every range
	main  int        // the main section: its path is always included
	all   [][]string // every path of the group, built on first use
}

// in returns the heading paths of the group's sections that head the group,
// are its main section or intersect [s, e), in document order; nil if none
// has a heading. When
// that is every section of the group, the slice is shared.
func (h *headings) in(s, e int) [][]string {
	n, hit := 0, 0
	for k := range h.secs {
		sec := &h.secs[k]
		if sec.head == nil {
			continue
		}
		n++
		if h.covers(k, s, e) {
			hit++
		}
	}
	if hit == 0 {
		return nil
	}
	if hit == n {
		if h.all == nil {
			h.all = make([][]string, 0, n)
			for k := range h.secs {
				if h.secs[k].head != nil {
					h.all = append(h.all, h.secs[k].path)
				}
			}
		}
		return h.all
	}
	out := make([][]string, 0, hit)
	for k := range h.secs {
		sec := &h.secs[k]
		if sec.head != nil && h.covers(k, s, e) {
			out = append(out, sec.path)
		}
	}
	return out
}

func (h *headings) covers(k, s, e int) bool {
	sec := &h.secs[k]
	return k < h.nlead || k == h.main || sec.start() < e && sec.end() > s
}
