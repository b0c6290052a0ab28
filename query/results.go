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
	var cited []*item
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
		cited = append(cited, it)
	}
	return out, e.cite(out, cited)
}

// item is one passage of a candidate that may become a result; note is
// the candidate's position, text and page the passage's once read (ok).
// Once read (cited), parent and stat are what it cites: its parent section
// and the stat its file was indexed with (each with whether there is one).
type item struct {
	c        *cand
	h        index.Hit
	note     int
	text     string
	page     int
	ok       bool
	cited    bool
	parent   index.Parent
	parentOK bool
	stat     index.StoredStat
	statOK   bool
}

// loadItems gives items[from:] text and what they cite, up to the first
// item of note position upTo (at least one item), in one read of the
// store; it returns the end of what it read. The cited passage's text may
// have come with its candidate, for a reranker that reads it.
func (e *Engine) loadItems(items []item, from, upTo int) (int, error) {
	to := from + 1
	for to < len(items) && items[to].note < upTo {
		to++
	}
	var refs []index.ChunkRef
	its := make([]*item, 0, to-from)
	for i := from; i < to; i++ {
		it := &items[i]
		its = append(its, it)
		if it.c.textOK && it.h.Ref == it.c.hit.Ref {
			it.text, it.page, it.ok = it.c.text, it.c.page, true
			continue
		}
		refs = append(refs, it.h.Ref)
	}
	c, err := e.citeItems(its, refs)
	if err != nil {
		return 0, err
	}
	k := 0
	for i := from; i < to; i++ {
		it := &items[i]
		if it.ok {
			continue
		}
		if ch := c.Chunks[k]; ch.Ref == refs[k] {
			it.text, it.page, it.ok = ch.Text, ch.Page, true
		}
		k++
	}
	return to, nil
}

// citeItems reads the chunks refs and what items cite (their parent
// sections and, when the engine knows the vaults' roots, their files'
// stats) in one read of the store (index.Store.Cite), and marks the items
// cited.
func (e *Engine) citeItems(items []*item, refs []index.ChunkRef) (index.Cited, error) {
	parents := make([]index.ChunkRef, len(items))
	for i, it := range items {
		parents[i] = index.ChunkRef{Doc: it.h.Ref.Doc, Ord: it.h.Parent}
	}
	var files []index.FileRef
	fileOf := make([]int, len(items))
	if e.roots != nil {
		for i, it := range items {
			h := &it.h
			fileOf[i] = len(files)
			if i > 0 && h.Vault == items[i-1].h.Vault && h.Path == items[i-1].h.Path {
				fileOf[i] = fileOf[i-1] // a note's passages follow each other
				continue
			}
			files = append(files, index.FileRef{Vault: h.Vault, Path: h.Path})
		}
	}
	c, err := e.ix.Cite(refs, parents, files)
	if err != nil {
		return c, fmt.Errorf("read what the results cite: %w", err)
	}
	for i, it := range items {
		it.cited = true
		it.parent, it.parentOK = c.Parents[i], c.ParentOK[i]
		if e.roots != nil {
			it.stat, it.statOK = c.Stats[fileOf[i]], c.StatOK[fileOf[i]]
		}
	}
	return c, nil
}

// cite gives the results their parent sections and, when the engine knows
// the vaults' roots, their absolute paths and stale flags, from what their
// items cite; items read without text (NoText) are read here, in one go.
func (e *Engine) cite(out []Result, items []*item) error {
	if len(out) == 0 {
		return nil
	}
	var unread []*item
	for _, it := range items {
		if !it.cited {
			unread = append(unread, it)
		}
	}
	if len(unread) > 0 {
		if _, err := e.citeItems(unread, nil); err != nil {
			return err
		}
	}
	stale := false
	for i := range out {
		r, it := &out[i], items[i]
		if it.parentOK {
			p := it.parent
			r.Parent = &ipc.Parent{LineStart: p.LineStart, LineEnd: p.LineEnd, Heading: strings.Join(p.Heading, " > ")}
		}
		if e.roots == nil {
			continue
		}
		r.AbsPath = e.absPath(r.Vault, r.Path)
		if i == 0 || r.Vault != out[i-1].Vault || r.Path != out[i-1].Path {
			// A note's passages follow each other: its file is looked at once.
			stale = e.isStale(r.Vault, r.Path, r.AbsPath, it.stat, it.statOK)
		}
		r.Stale = stale
	}
	return nil
}
