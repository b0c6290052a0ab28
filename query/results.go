package query

import (
	"fmt"
	"strings"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/query/snippet"
)

// results turns the first req.K candidates into results: req.Passages
// passages of each (at least one), with their text unless req.NoText,
// their parent sections, absolute paths and stale flags. A note whose
// passages all vanished since ranking is skipped, and a spare candidate
// after the first req.K takes its place.
func (e *Engine) results(cs []*cand, req Request, plan Plan) ([]Result, error) {
	per := max(req.Passages, 1)
	var items []item
	for n, c := range cs {
		for i, h := range c.passages {
			if i == per {
				break
			}
			items = append(items, item{c: c, h: h, note: n})
		}
	}
	var terms []snippet.Term
	if !req.NoText {
		terms = snipTerms(e.ix.QueryWords(plan.Text, plan.Phrases...))
	}
	var out []Result
	var cited []index.Hit
	notes, loaded := 0, 0
	var last *cand
	for i := range items {
		it := &items[i]
		if it.c != last && notes == req.K {
			break
		}
		if !req.NoText && i == loaded {
			// Text is read for the notes still needed, not for the spares:
			// those are read only when a note vanished.
			var err error
			if loaded, err = e.loadItems(items, i, it.note+req.K-notes); err != nil {
				return nil, err
			}
		}
		if !req.NoText && !it.ok {
			continue // the document changed after ranking
		}
		if it.c != last {
			notes++
			last = it.c
		}
		r := it.c.result(it.h, req.Explain)
		r.Text, r.Page = it.text, it.page
		e.snip(&r, terms, req.SnippetWidth)
		out = append(out, r)
		cited = append(cited, it.h)
	}
	return out, e.cite(out, cited)
}

// item is one passage of a candidate that may become a result; note is
// the candidate's position, text and page the passage's once read (ok).
type item struct {
	c    *cand
	h    index.Hit
	note int
	text string
	page int
	ok   bool
}

// loadItems gives items[from:] text, up to the first item of note
// position upTo (at least one item), in one read; it returns the end of
// what it read. The cited passage's text may have come with its
// candidate, for a reranker that reads it.
func (e *Engine) loadItems(items []item, from, upTo int) (int, error) {
	to := from + 1
	for to < len(items) && items[to].note < upTo {
		to++
	}
	var refs []index.ChunkRef
	for i := from; i < to; i++ {
		it := &items[i]
		if it.c.textOK && it.h.Ref == it.c.hit.Ref {
			it.text, it.page, it.ok = it.c.text, it.c.page, true
			continue
		}
		refs = append(refs, it.h.Ref)
	}
	if len(refs) == 0 {
		return to, nil
	}
	chunks, err := e.ix.Chunks(refs)
	if err != nil {
		return 0, err
	}
	k := 0
	for i := from; i < to; i++ {
		it := &items[i]
		if it.ok {
			continue
		}
		if c := chunks[k]; c.Ref == refs[k] {
			it.text, it.page, it.ok = c.Text, c.Page, true
		}
		k++
	}
	return to, nil
}

// cite gives the results their parent sections and, when the engine knows
// the vaults' roots, their absolute paths and stale flags; the records are
// read from the store in one go (index.Store.Cite).
func (e *Engine) cite(out []Result, hits []index.Hit) error {
	if len(out) == 0 {
		return nil
	}
	parents := make([]index.ChunkRef, len(hits))
	for i, h := range hits {
		parents[i] = index.ChunkRef{Doc: h.Ref.Doc, Ord: h.Parent}
	}
	var files []index.FileRef
	fileOf := make([]int, len(out))
	if e.roots != nil {
		for i, r := range out {
			fileOf[i] = len(files)
			if i > 0 && r.Vault == out[i-1].Vault && r.Path == out[i-1].Path {
				fileOf[i] = fileOf[i-1] // a note's passages follow each other
				continue
			}
			files = append(files, index.FileRef{Vault: r.Vault, Path: r.Path})
		}
	}
	c, err := e.ix.Cite(parents, files)
	if err != nil {
		return fmt.Errorf("read what the results cite: %w", err)
	}
	stale := make([]int8, len(files)) // 0 unknown, 1 fresh, 2 stale
	for i := range out {
		r := &out[i]
		if c.ParentOK[i] {
			p := c.Parents[i]
			r.Parent = &ipc.Parent{LineStart: p.LineStart, LineEnd: p.LineEnd, Heading: strings.Join(p.Heading, " > ")}
		}
		if e.roots == nil {
			continue
		}
		r.AbsPath = e.absPath(r.Vault, r.Path)
		f := fileOf[i]
		if stale[f] == 0 {
			stale[f] = 1
			if e.isStale(r.Vault, r.Path, r.AbsPath, c.Stats[f], c.StatOK[f]) {
				stale[f] = 2
			}
		}
		r.Stale = stale[f] == 2
	}
	return nil
}
