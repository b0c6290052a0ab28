package chunk

// span is a trimmed, non-empty byte range [s, e) of the source. lines marks
// text that is split at line boundaries rather than sentences (code, tables).
type span struct {
	s, e  int
	lines bool
}

// block is a top-level block of the body: a heading or a content block
// (paragraph, list, fenced code, table, blockquote, ...), trimmed.
type block struct {
	span
	heading bool
	level   int    // heading level 1-6
	title   string // plain heading text
	// subs are the start offsets of the block's natural parts after the
	// first (list items, blockquote children); a block too large for a
	// chunk is packed part by part before anything is split inside a part.
	subs []int
}

// builder assembles parents and children from blocks.
type builder struct {
	*scratch
	doc   *Document
	src   []byte
	text  string // src as a string, made once for the chunk texts
	li    *lineIndex
	opt   Options
	subst substance // what of the body is searchable text
}

// sections groups blocks into sections (an optional heading followed by the
// content blocks up to the next heading), merges tiny sections into their
// neighbours (see groupSections) and emits the parents and children of
// every group.
func (b *builder) sections(blocks []block) {
	type level struct {
		n     int
		title string
	}
	var stack []level
	heads := b.heads[:0]
	for i := range blocks {
		if blocks[i].heading {
			heads = append(heads, blocks[i].span)
		}
	}
	b.heads = heads
	b.subst = newSubstance(b.src, b.doc.BodyStart, heads, b.bits, b.cum)
	b.bits, b.cum = b.subst.bits, b.subst.cum
	secs := b.secs[:0]
	for i := 0; i < len(blocks); {
		var sec section
		lo := i
		if blocks[i].heading {
			sec.head = &blocks[i]
			for len(stack) > 0 && stack[len(stack)-1].n >= sec.head.level {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, level{sec.head.level, sec.head.title})
			sec.path = make([]string, len(stack))
			for k, l := range stack {
				sec.path[k] = l.title
			}
			i++
		}
		j := i
		for j < len(blocks) && !blocks[j].heading {
			sec.subst += b.subst.count(blocks[j].s, blocks[j].e)
			j++
		}
		sec.content = blocks[i:j]
		sec.lo, sec.hi = lo, j
		secs = append(secs, sec)
		i = j
	}
	b.secs = secs
	b.groups = groupSections(secs, b.opt.ChildChars, b.groups[:0])
	if n := len(b.groups); n > 0 && b.doc.Chunks == nil {
		o, body := b.opt, len(b.src)-b.doc.BodyStart
		b.doc.Chunks = make([]Chunk, 0, n+body/max(1, o.ChildChars-o.ChildOverlap))
		b.doc.Parents = make([]Parent, 0, n+body/o.ParentChars)
	}
	for _, g := range b.groups {
		b.group(secs[g.from:g.to], blocks[secs[g.from].lo:secs[g.to-1].hi], g.main-g.from)
	}
}

// unitsOf appends blk clipped to [cs, ce) as packing units: the whole block,
// or its parts if the block is longer than limit.
func (b *builder) unitsOf(dst []span, blk *block, cs, ce, limit int) []span {
	if len(blk.subs) == 0 || blk.e-blk.s <= limit {
		if s, e := trim(b.src, max(blk.s, cs), min(blk.e, ce)); s < e {
			dst = append(dst, span{s, e, blk.lines})
		}
		return dst
	}
	for i := -1; i < len(blk.subs); i++ {
		ps, pe := blk.s, blk.e
		if i >= 0 {
			ps = blk.subs[i]
		}
		if i+1 < len(blk.subs) {
			pe = blk.subs[i+1]
		}
		if s, e := trim(b.src, max(ps, cs), min(pe, ce)); s < e {
			dst = append(dst, span{s, e, blk.lines})
		}
	}
	return dst
}

// group emits the parents and children of a group of sections, main being
// the one whose heading path the citations carry; blks are the group's
// blocks, headings included. The headings before the group's first content
// block lead it: they travel in Heading and Headings rather than in the
// children's text. Any later heading is glued to the content block after
// it (or, at the end, to the last one) so that it stays inside the text
// around it; blks are modified in place to that end.
func (b *builder) group(secs []section, blks []block, main int) {
	o := b.opt
	path := secs[main].path
	nlead := 0 // sections before the first one with content
	for nlead < len(secs) && len(secs[nlead].content) == 0 {
		nlead++
	}
	first, last, glue := -1, -1, -1 // first and last content block; start of headings to glue
	for i := range blks {
		if blks[i].heading {
			if first >= 0 && glue < 0 {
				glue = blks[i].s
			}
			continue
		}
		if first < 0 {
			first = i
		}
		if glue >= 0 {
			blks[i].s, glue = glue, -1
		}
		last = i
	}
	if glue >= 0 {
		blks[last].e = blks[len(blks)-1].e
	}
	lead, content := blks[:first], blks[first:last+1]
	hs := headings{secs: secs, nlead: nlead, main: main}

	units := b.units[:0]
	for i := range content {
		if !content[i].heading {
			units = b.unitsOf(units, &content[i], 0, len(b.src), o.ParentChars)
		}
	}
	if len(lead) > 0 {
		// The lead headings are glued to the first unit so a parent never
		// consists of bare headings.
		units[0].s = lead[0].s
	}
	parents := pack(b.src, units, o.ParentChars, o.ParentChars, o.ParentChars, b.parents[:0])
	parents = fixEmpty(b.src, parents, o.ParentChars, o.ParentChars, &b.subst)
	b.units, b.parents = units, parents

	k := 0 // first content block that may intersect the current parent
	for _, ps := range parents {
		// Child units: content blocks clipped to the parent. A lead heading
		// is excluded when the parent holds all of it (it travels in
		// Heading); a fragment of an over-long heading is kept as content.
		cu := b.cu[:0]
		for _, h := range lead {
			if h.s < ps.e && h.e > ps.s && (h.s < ps.s || h.e > ps.e) {
				if s, e := trim(b.src, max(h.s, ps.s), min(h.e, ps.e)); s < e {
					cu = append(cu, span{s, e, false})
				}
			}
		}
		for k < len(content) && content[k].e <= ps.s {
			k++
		}
		for i := k; i < len(content) && content[i].s < ps.e; i++ {
			if !content[i].heading {
				cu = b.unitsOf(cu, &content[i], ps.s, ps.e, o.ChildChars)
			}
		}
		if len(cu) == 0 { // a parent holding only heading text: no children
			cu = append(cu, ps)
		}
		rest := o.ChildChars - o.ChildOverlap
		b.pieces = pack(b.src, cu, o.ChildChars, rest, o.ChildChars, b.pieces[:0])
		b.pieces = fixEmpty(b.src, b.pieces, o.ChildChars, rest, &b.subst)
		b.cu = cu
		if len(b.pieces) == 0 {
			continue
		}
		pi := len(b.doc.Parents)
		b.doc.Parents = append(b.doc.Parents, Parent{Span: b.li.span(ps.s, ps.e), Heading: path, Headings: hs.in(ps.s, ps.e)})
		b.emitChildren(pi, path, &hs)
	}
}

// emitChildren turns b.pieces into overlapping chunks of parent pi.
func (b *builder) emitChildren(pi int, path []string, hs *headings) {
	o := b.opt
	if b.text == "" {
		b.text = string(b.src)
	}
	prevStart := -1
	for i, p := range b.pieces {
		start := p.s
		if i > 0 && o.ChildOverlap > 0 {
			start = overlapStart(b.src, prevStart, b.pieces[i-1].e, p, o.ChildOverlap, o.ChildChars)
		}
		b.doc.Chunks = append(b.doc.Chunks, Chunk{
			Span:     b.li.span(start, p.e),
			Parent:   pi,
			Heading:  path,
			Headings: hs.in(start, p.e),
			Text:     b.text[start:p.e],
			OwnLine:  b.li.line(p.s) + 1,
		})
		prevStart = start
	}
}

// pack partitions units (ordered, disjoint, trimmed) into pieces. The first
// piece holds at most first bytes, the following ones at most rest bytes.
// Consecutive whole units are packed together; a unit is only split when it
// does not fit and is longer than hard bytes (a unit of up to hard bytes
// becomes a piece of its own instead). When the unit after a piece must be
// split, its head fills the rest of that piece. out is appended to and
// returned.
func pack(src []byte, units []span, first, rest, hard int, out []span) []span {
	if len(units) == 0 {
		return out
	}
	n0 := len(out)
	k, pos := 0, units[0].s
	for k < len(units) {
		limit := rest
		if len(out) == n0 {
			limit = first
		}
		u := units[k]
		if u.e-pos > limit {
			if u.e-pos <= hard {
				out = append(out, span{pos, u.e, u.lines})
			} else {
				cut, _ := bestCut(src, pos, pos, pos+limit, u.lines)
				_, e := trim(src, pos, cut)
				out = append(out, span{pos, e, u.lines})
				pos = skipSpace(src, cut, u.e)
				continue
			}
			k++
		} else {
			e := u.e
			for k++; k < len(units) && units[k].e-pos <= limit; k++ {
				e = units[k].e
			}
			if k < len(units) && units[k].e-units[k].s > hard {
				// The next unit must be split anyway: fill the rest of
				// this piece with its head rather than leave it short.
				if room := pos + limit - units[k].s; room >= max(limit/4, 4) {
					cut, cls := bestCut(src, pos, units[k].s, pos+limit, units[k].lines)
					if cls <= cutLine && cut-pos >= limit/2 {
						_, ce := trim(src, units[k].s, cut)
						out = append(out, span{pos, ce, false})
						pos = skipSpace(src, cut, units[k].e)
						continue
					}
				}
			}
			out = append(out, span{pos, e, false})
		}
		if k < len(units) {
			pos = units[k].s
		}
	}
	return out
}
