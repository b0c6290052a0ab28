package host

import (
	"context"

	"github.com/ragd/ragd/plugins"
)

// extractorHandle is a plugins.Extractor backed by a supervised plugin.
type extractorHandle struct{ p *proc }

// ExtractorInfo returns the Info the plugin gave at its last start
// (extensions lower-cased, with their dot), waiting for a start in
// progress.
func (h *extractorHandle) ExtractorInfo(ctx context.Context) (plugins.ExtractorInfo, error) {
	info, err := h.p.cachedInfo(ctx)
	if err != nil {
		return plugins.ExtractorInfo{}, err
	}
	return info.(plugins.ExtractorInfo), nil
}

// Extract extracts one file; an empty Format is taken as plain text.
func (h *extractorHandle) Extract(ctx context.Context, req plugins.ExtractRequest) (plugins.Extraction, error) {
	var x plugins.Extraction
	err := h.p.call(ctx, "extract", func(ctx context.Context, inst *instance) error {
		var err error
		x, err = inst.raw.(plugins.Extractor).Extract(ctx, req)
		return err
	})
	if err != nil {
		return plugins.Extraction{}, err
	}
	if x.Format == "" {
		x.Format = plugins.FormatText
	}
	return x, nil
}
