package daemon

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/host"
)

// enrichFunc is the index's enrichment hook, or nil when no [index]
// entity_extractor is configured.
func (d *Daemon) enrichFunc() index.EnrichFunc {
	if d.cfg.Index.EntityExtractor == "" || d.backends == nil {
		return nil
	}
	return d.enrich
}

// enrich runs a Markdown or text note through the entity extractor plugin
// and returns its typed entities and relations, cached by the note's hash
// so an unchanged, moved or copied note is never sent to the model again.
func (d *Daemon) enrich(rel, sha string, text []byte) (*index.Enrichment, error) {
	name := d.cfg.Index.EntityExtractor
	if e, ok := d.store.CachedEnrichment(sha, name); ok {
		return e, nil
	}
	ex, err := d.backends.mgr.Extractor(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	mt := "text/markdown"
	if !isMarkdown(rel) {
		mt = "text/plain"
	}
	out, err := ex.Extract(context.Background(), plugins.ExtractRequest{Path: rel, MediaType: mt, Data: text})
	if err != nil {
		if errors.Is(err, host.ErrTimeout) || errors.Is(err, host.ErrUnavailable) {
			err = fmt.Errorf("%w: %w", index.ErrTransient, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	e := &index.Enrichment{}
	for _, x := range out.Entities {
		e.Entities = append(e.Entities, index.EnrichedEntity{Name: x.Name, Type: x.Type, Aliases: x.Aliases,
			Line: x.Line, Confidence: x.Confidence})
	}
	for _, r := range out.Relations {
		e.Facts = append(e.Facts, index.EnrichedFact{Subject: r.Subject, Predicate: r.Predicate, Object: r.Object,
			Line: r.Line, Confidence: r.Confidence})
	}
	d.store.CacheEnrichment(sha, name, e)
	return e, nil
}

// isMarkdown tells a Markdown note from a plain-text one.
func isMarkdown(rel string) bool {
	switch strings.ToLower(path.Ext(rel)) {
	case ".txt", ".text":
		return false
	}
	return true
}
