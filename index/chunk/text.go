package chunk

import "unicode/utf8"

// PlainText chunks a plain-text note: paragraphs (runs of non-blank lines
// separated by blank lines) are the blocks; they are grouped into parents of
// at most ParentChars bytes and packed into children like Markdown blocks.
// Heading paths are empty, Title is "" and a UTF-8 BOM is skipped. It returns
// ErrInvalidUTF8 if src is not valid UTF-8.
func PlainText(src []byte, opt Options) (*Document, error) {
	if !utf8.Valid(src) {
		return nil, ErrInvalidUTF8
	}
	opt = opt.WithDefaults()
	doc := &Document{BodyStart: bomLen(src)}
	if isBlank(src[doc.BodyStart:]) {
		return doc, nil
	}
	sc := getScratch()
	defer sc.release()
	li := newLineIndex(src, sc.starts[:0])
	blocks := sc.blocks[:0]
	start := -1 // start offset of the current paragraph
	flush := func(end int) {
		if start >= 0 {
			if s, e := trim(src, start, end); s < e {
				blocks = append(blocks, block{span: span{s: s, e: e}})
			}
			start = -1
		}
	}
	for l := li.line(doc.BodyStart); l < li.count(); l++ {
		ls, le := max(li.lineStart(l), doc.BodyStart), li.lineEnd(l)
		if isBlank(src[ls:le]) {
			flush(ls)
		} else if start < 0 {
			start = ls
		}
	}
	flush(len(src))
	sc.starts, sc.blocks = li.starts, blocks
	b := builder{scratch: sc, doc: doc, src: src, li: &li, opt: opt}
	b.sections(blocks)
	return doc, nil
}
