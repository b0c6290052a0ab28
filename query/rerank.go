package query

import (
	"context"
	"strings"

	"github.com/ragd/ragd/index"
)

// rerank asks the reranker to score the candidates and orders them by its
// scores. A reranker that fails leaves the fused order and is reported as
// degraded ("rerank"): a query never fails because of it.
func (e *Engine) rerank(ctx context.Context, plan Plan, cs []*cand, resp *Response) []*cand {
	if len(cs) < 2 {
		return cs
	}
	in := make([]Candidate, len(cs))
	docs := make([]index.DocID, len(cs))
	for i, c := range cs {
		docs[i] = c.hit.Ref.Doc
	}
	aliases := e.ix.Aliases(docs)
	for i, c := range cs {
		in[i] = Candidate{ID: c.hit.Ref.String(), Text: c.text, Path: c.hit.Path, Vault: c.hit.Vault,
			Title: c.hit.Title, Heading: strings.Join(c.hit.Heading, " > "), Aliases: aliases[i], Score: c.fused}
	}
	scores, err := e.reranker.Rerank(ctx, plan.Text, in)
	if err == nil && len(scores) != len(cs) {
		err = errRerankCount
	}
	if err != nil {
		resp.Degraded = append(resp.Degraded, "rerank")
		resp.DegradedWhy = append(resp.DegradedWhy, "reranker: "+err.Error())
		return cs
	}
	for i, c := range cs {
		c.rerank, c.hasRR = scores[i], true
	}
	sortCands(cs, func(c *cand) float64 { return c.rerank })
	return cs
}

type rerankError string

func (e rerankError) Error() string { return string(e) }

const errRerankCount = rerankError("returned a different number of scores than candidates")
