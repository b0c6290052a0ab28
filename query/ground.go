package query

import (
	"fmt"
	"strings"

	"github.com/ragd/ragd/ipc"
)

// grounded applies the relevance floor to each candidate: it stays when a
// channel found evidence for it above that channel's floor — a lexical
// match (scoring at least MinBM25), a vector similarity at or above the
// calibrated floor, or an entity the graph channel matched. The vector
// channel always has a nearest chunk, so until its floor is known
// (floor 0: not calibrated, and MinSimilarity unset) it grounds nothing on
// its own: it only reorders what the other channels found.
func (e *Engine) grounded(cs []*cand, floor float64) []*cand {
	kept := cs[:0]
	for _, c := range cs {
		switch {
		case c.ranks[chLex] > 0 && c.scores[chLex] >= e.opt.MinBM25:
		case c.ranks[chVec] > 0 && floor > 0 && c.scores[chVec] >= floor:
		case c.ranks[chGraph] > 0:
		default:
			continue
		}
		kept = append(kept, c)
	}
	return kept
}

// denoise drops candidates under Alpha × the best score (after rerank when
// it ran, else fused).
func (e *Engine) denoise(cs []*cand) []*cand {
	if e.opt.Alpha <= 0 || len(cs) == 0 {
		return cs
	}
	key := func(c *cand) float64 {
		if c.hasRR {
			return c.rerank
		}
		return c.fused
	}
	best := key(cs[0])
	if best <= 0 {
		return cs
	}
	kept := cs[:0]
	for _, c := range cs {
		if key(c) >= e.opt.Alpha*best {
			kept = append(kept, c)
		}
	}
	return kept
}

// suggest says what to try when an answer is not grounded.
func (e *Engine) suggest(req Request, plan Plan, resp *Response) []string {
	var out []string
	if len(req.Vaults) > 0 || req.PathPrefix != "" || len(plan.Vaults) > 0 || len(plan.Paths) > 0 ||
		len(plan.Tags) > 0 || !plan.After.IsZero() || !plan.Before.IsZero() {
		out = append(out, "widen the scope: drop the vault, folder, tag or date filters")
	}
	if req.Mode == ipc.ModeLexical || req.Mode == ipc.ModeVector {
		out = append(out, "try mode hybrid, which combines keyword and semantic search")
	}
	for i, ch := range resp.Degraded {
		out = append(out, fmt.Sprintf("the %s channel did not answer: %s", ch, resp.DegradedWhy[i]))
	}
	for _, p := range plan.Problems {
		out = append(out, "query filter ignored: "+p)
	}
	if len(strings.Fields(plan.Text)) > 0 {
		out = append(out, "try other keywords: synonyms, or the words your notes would use")
	}
	return out
}
