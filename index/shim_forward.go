package index

import "github.com/ragd/ragd/index/segment"

// forwardOf converts a segment note to the in-memory postings' record
// (temporary, until the segments replace the in-memory postings).
func forwardOf(n *segment.Note) *forward {
	f := &forward{headings: n.Headings}
	for _, c := range n.Chunks {
		f.chunks = append(f.chunks, chunkMeta{fieldLens{n.FieldLen[segment.FieldTitle], c.Head, c.Body}, c.Parent, c.LineStart, c.LineEnd, c.Hash})
	}
	for _, t := range n.Terms {
		var ps []posting
		for _, p := range t.Postings {
			ps = append(ps, posting{ord: p.Ord, title: t.Note[segment.FieldTitle], head: p.Head, body: p.Body})
		}
		if len(ps) > 0 {
			f.terms = append(f.terms, t.Text)
			f.postings = append(f.postings, ps)
		}
	}
	return f
}
