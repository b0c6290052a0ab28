package query

import (
	"context"
)

// Context retrieves req and builds a cited <retrieved-context> block of
// the results (BuildContext). Each result's lines are quoted from the file
// itself when it has not changed since indexing, so a citation's lines are
// exactly what the block shows; a changed file keeps the indexed text and
// is marked stale.
func (e *Engine) Context(ctx context.Context, req Request, opt ContextOptions) (*Response, ContextBlock, error) {
	res, err := e.Search(ctx, req)
	if err != nil {
		return nil, ContextBlock{}, err
	}
	hits := make([]ContextHit, 0, len(res.Results))
	for _, r := range res.Results {
		h := ContextHit{Vault: r.Vault, Path: r.Path, AbsPath: r.AbsPath,
			LineStart: r.LineStart, LineEnd: r.LineEnd, Heading: r.Heading,
			Text: r.Text, Score: r.Score, Stale: r.Stale}
		if !h.Stale {
			if text, ok := readLines(h.AbsPath, h.LineStart, h.LineEnd, isExtracted(r.Path)); ok {
				h.Text = text
			}
		}
		hits = append(hits, h)
	}
	return res, BuildContext(hits, opt), nil
}
