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
	doc    *Document
	src    []byte
	li     *lineIndex
	opt    Options
	units  []span // scratch: parent units of a section
	cu     []span // scratch: child units of a parent
	pieces []span // scratch: primary child ranges of a parent
}

// sections groups blocks into sections (an optional heading followed by the
// content blocks up to the next heading) and emits their parents and children.
func (b *builder) sections(blocks []block) {
	type level struct {
		n     int
		title string
	}
	var stack []level
	for i := 0; i < len(blocks); {
		var head *block
		var path []string
		if blocks[i].heading {
			head = &blocks[i]
			for len(stack) > 0 && stack[len(stack)-1].n >= head.level {
				stack = stack[:len(stack)-1]
			}
			stack = append(stack, level{head.level, head.title})
			path = make([]string, len(stack))
			for k, l := range stack {
				path[k] = l.title
			}
			i++
		}
		j := i
		for j < len(blocks) && !blocks[j].heading {
			j++
		}
		b.section(head, blocks[i:j], path)
		i = j
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

// section emits the parents and children of one section.
func (b *builder) section(head *block, content []block, path []string) {
	o := b.opt
	units := b.units[:0]
	for i := range content {
		units = b.unitsOf(units, &content[i], 0, len(b.src), o.ParentChars)
	}
	if head != nil {
		if len(units) > 0 {
			// The heading is glued to the first unit so a parent never
			// consists of a bare heading when there is content.
			units[0].s = head.s
		} else {
			units = append(units, head.span)
		}
	}
	if len(units) == 0 {
		return
	}
	parents := pack(b.src, units, o.ParentChars, o.ParentChars, o.ParentChars, nil)
	b.units = units

	k := 0 // first content block that may intersect the current parent
	for _, ps := range parents {
		pi := len(b.doc.Parents)
		b.doc.Parents = append(b.doc.Parents, Parent{Span: b.li.span(ps.s, ps.e), Heading: path})

		// Child units: content blocks clipped to the parent. The heading is
		// excluded when the parent holds all of it (it travels in Heading);
		// a fragment of an over-long heading is kept as content.
		cu := b.cu[:0]
		if head != nil && head.s < ps.e && head.e > ps.s && (head.s < ps.s || head.e > ps.e) {
			if s, e := trim(b.src, max(head.s, ps.s), min(head.e, ps.e)); s < e {
				cu = append(cu, span{s, e, false})
			}
		}
		for k < len(content) && content[k].e <= ps.s {
			k++
		}
		for i := k; i < len(content) && content[i].s < ps.e; i++ {
			cu = b.unitsOf(cu, &content[i], ps.s, ps.e, o.ChildChars)
		}
		if len(cu) == 0 { // heading-only section (or a parent holding only heading text)
			cu = append(cu, ps)
		}
		rest := o.ChildChars - o.ChildOverlap
		b.pieces = pack(b.src, cu, o.ChildChars, rest, o.ChildChars, b.pieces[:0])
		b.cu = cu
		b.emitChildren(pi, path)
	}
}

// emitChildren turns b.pieces into overlapping chunks of parent pi.
func (b *builder) emitChildren(pi int, path []string) {
	o := b.opt
	prevStart := -1
	for i, p := range b.pieces {
		start := p.s
		if i > 0 && o.ChildOverlap > 0 {
			start = overlapStart(b.src, prevStart, b.pieces[i-1].e, p, o.ChildOverlap, o.ChildChars)
		}
		b.doc.Chunks = append(b.doc.Chunks, Chunk{
			Span:    b.li.span(start, p.e),
			Parent:  pi,
			Heading: path,
			Text:    string(b.src[start:p.e]),
			OwnLine: b.li.line(p.s) + 1,
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
