package ingest

import (
	"strings"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/index/graph"
)

// Enrichment: with SyncOptions.Enrich set, every Markdown and text note is
// also read by a model (an entity extractor plugin), which names the typed
// entities it mentions and facts about them; they are added to the note's
// graph record (graph.Record.AddEnrichment), so they are written and
// deleted in the same transaction as the note's chunks, like its links.
//
// A failed enrichment never fails the note: it is indexed without model
// entities, Document.EnrichError says why, and its pipeline lacks the
// enricher, so the next pass tries again.

// EnrichFunc enriches a Markdown or text note; sha is the hex SHA-256 of
// text (a cache key).
type EnrichFunc func(rel, sha string, text []byte) (*graph.Enrichment, error)

// enrichSuffix is the pipeline suffix of a note of kind enriched with
// opt.Enrich ("" when enrichment is off for it).
func (in *Ingester) enrichSuffix(opt SyncOptions, kind string) string {
	if opt.Enrich == nil || in.noGraph || kind != "markdown" && kind != "text" {
		return ""
	}
	return "|entities:" + opt.Enricher
}

// enrich runs opt.Enrich on a prepared note (chunked as cd) and adds what
// it found to the note's graph record. On failure the note stays indexed
// without model entities and its pipeline loses the enricher, so it is
// retried.
func (in *Ingester) enrich(opt SyncOptions, p *index.Prepared, cd *chunk.Document, data []byte) {
	suffix := in.enrichSuffix(opt, p.Doc.Kind)
	if suffix == "" || p.Doc.Status != index.StatusOK {
		return
	}
	e, err := opt.Enrich(p.Doc.Path, p.Doc.Hash, data)
	if err != nil {
		p.Doc.Pipeline = strings.TrimSuffix(p.Doc.Pipeline, suffix)
		p.Doc.EnrichError = err.Error()
		in.log.Warn("entity extraction failed; the note is indexed without model entities and retried on the next pass",
			"vault", p.Doc.Vault, "path", p.Doc.Path, "err", err)
		return
	}
	if e != nil {
		an := in.store.Analyzer()
		p.Graph().AddEnrichment(func(t string) []string { return an.AppendTerms(nil, t) }, e, cd.Chunks)
	}
}
