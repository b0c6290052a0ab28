package query

import (
	"fmt"
	"strings"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
)

// groundedBy applies the safety floor to the channels' best raw scores:
// the answer is grounded when some channel found evidence above its floor.
// The graph channel only answers on an exact entity match, which is
// evidence in itself.
func (e *Engine) groundedBy(lists [nChannels][]index.Hit) bool {
	if l := lists[channelIndex(ipc.ChannelLexical)]; len(l) > 0 && l[0].Score >= e.opt.MinBM25 {
		return true
	}
	if l := lists[channelIndex(ipc.ChannelVector)]; len(l) > 0 && l[0].Score >= e.SimilarityFloor() {
		return true
	}
	return len(lists[channelIndex(ipc.ChannelGraph)]) > 0
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
