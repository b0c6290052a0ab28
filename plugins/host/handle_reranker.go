package host

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/plugins"
)

// rerankerHandle is a plugins.Reranker backed by a supervised plugin.
type rerankerHandle struct{ p *proc }

// RerankerInfo returns the Info the plugin gave at its last start.
func (h *rerankerHandle) RerankerInfo(ctx context.Context) (plugins.RerankerInfo, error) {
	info, err := h.p.cachedInfo(ctx)
	if err != nil {
		return plugins.RerankerInfo{}, err
	}
	return info.(plugins.RerankerInfo), nil
}

// Rerank scores cands in one call and checks one score comes back per
// candidate.
func (h *rerankerHandle) Rerank(ctx context.Context, query string, cands []plugins.Candidate) ([]float64, error) {
	if len(cands) == 0 {
		return []float64{}, nil
	}
	var scores []float64
	err := h.p.call(ctx, "rerank", func(ctx context.Context, inst *instance) error {
		var err error
		scores, err = inst.raw.(plugins.Reranker).Rerank(ctx, query, cands)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(scores) != len(cands) {
		return nil, fmt.Errorf("plugin %s: rerank: %d scores for %d candidates", h.p.spec.Name, len(scores), len(cands))
	}
	return scores, nil
}
