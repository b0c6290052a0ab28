package host

import (
	"context"
	"fmt"

	"github.com/ragd/ragd/plugins"
)

// embedderHandle is a plugins.Embedder backed by a supervised plugin.
type embedderHandle struct{ p *proc }

// EmbedderInfo returns the Info the plugin gave at its last start, waiting
// for a start in progress.
func (h *embedderHandle) EmbedderInfo(ctx context.Context) (plugins.EmbedderInfo, error) {
	info, err := h.p.cachedInfo(ctx)
	if err != nil {
		return plugins.EmbedderInfo{}, err
	}
	return info.(plugins.EmbedderInfo), nil
}

// Embed embeds texts, split into the plugin's MaxBatch, and checks that
// one vector of the advertised dimensions comes back per text.
func (h *embedderHandle) Embed(ctx context.Context, input plugins.InputType, texts []string) ([][]float32, error) {
	info, err := h.EmbedderInfo(ctx)
	if err != nil {
		return nil, err
	}
	batch := len(texts)
	if info.MaxBatch > 0 {
		batch = info.MaxBatch
	}
	out := make([][]float32, 0, len(texts))
	// An empty batch still makes one (cheap) call: it is a round trip.
	for lo := 0; lo == 0 || lo < len(texts); lo += max(batch, 1) {
		part := texts[lo:min(lo+batch, len(texts))]
		var vecs [][]float32
		err := h.p.call(ctx, "embed", func(ctx context.Context, inst *instance) error {
			var err error
			vecs, err = inst.raw.(plugins.Embedder).Embed(ctx, input, part)
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(part) {
			return nil, fmt.Errorf("plugin %s: embed: %d vectors for %d texts", h.p.spec.Name, len(vecs), len(part))
		}
		for i, v := range vecs {
			if len(v) != info.Dimensions {
				return nil, fmt.Errorf("plugin %s: embed: vector %d has %d dimensions, want %d", h.p.spec.Name, lo+i, len(v), info.Dimensions)
			}
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// cachedInfo returns the plugins.*Info of the last successful start.
func (p *proc) cachedInfo(ctx context.Context) (any, error) {
	p.mu.Lock()
	info := p.info
	p.mu.Unlock()
	if info != nil {
		return info, nil
	}
	if _, err := p.ready(ctx); err != nil {
		return nil, fmt.Errorf("plugin %s: info: %w", p.spec.Name, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.info, nil
}
