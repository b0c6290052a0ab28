package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/ingest"
	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/host"
)

// enrichFunc is the index's enrichment hook, or nil when no [index]
// entity_extractor is configured.
func (d *Daemon) enrichFunc() ingest.EnrichFunc {
	if d.cfg.Index.EntityExtractor == "" || d.backends == nil {
		return nil
	}
	return d.enrich
}

// operationalOptions are plugin options that do not change what a model
// answers; the others (model, temperature, max_chars, min_confidence, ...)
// are part of the enricher's identity.
var operationalOptions = []string{"base_url", "api_key_env", "timeout", "max_retries", "concurrency", "cache_dir", "cache_entries"}

// enricher identifies the entity extractor and the options that shape its
// answers: it is part of every enriched note's pipeline and of the
// enrichment cache key, so changing the model enriches the notes again.
func (d *Daemon) enricher() string {
	name := d.cfg.Index.EntityExtractor
	if name == "" {
		return ""
	}
	opts := map[string]any{}
	for _, p := range d.cfg.Plugins {
		if p.Name == name {
			for k, v := range p.Options {
				if !slices.Contains(operationalOptions, k) {
					opts[k] = v
				}
			}
		}
	}
	b, _ := json.Marshal(opts) // map keys are sorted
	sum := sha256.Sum256(b)
	return name + "/" + hex.EncodeToString(sum[:4])
}

// enrich runs a Markdown or text note through the entity extractor plugin
// and returns its typed entities and relations, cached by the note's hash
// so an unchanged, moved or copied note is never sent to the model again.
func (d *Daemon) enrich(rel, sha string, text []byte) (*graph.Enrichment, error) {
	name := d.cfg.Index.EntityExtractor
	id := d.enricher()
	if e, ok := d.ingest.CachedEnrichment(sha, id); ok {
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
		if host.Transient(err) {
			err = fmt.Errorf("%w: %w", ingest.ErrTransient, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	e := &graph.Enrichment{}
	for _, x := range out.Entities {
		e.Entities = append(e.Entities, graph.EnrichedEntity{Name: x.Name, Type: x.Type, Aliases: x.Aliases,
			Line: x.Line, Confidence: x.Confidence})
	}
	for _, r := range out.Relations {
		e.Facts = append(e.Facts, graph.EnrichedFact{Subject: r.Subject, Predicate: r.Predicate, Object: r.Object,
			Line: r.Line, Confidence: r.Confidence})
	}
	d.ingest.CacheEnrichment(sha, id, e)
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
