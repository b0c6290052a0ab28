package ingest

import (
	"encoding/json"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/graph"
)

// The plugin caches (index.Cache): the text an extractor produced for a
// file, and what an entity extractor found in a note, each keyed by the
// content hash and the plugin, so that a renamed, moved, copied or
// re-chunked file is never sent to the plugin again. A cache that cannot
// be read or written is logged and bypassed.

// CachedExtraction returns the cached extraction of a file's bytes by an
// extractor, if any.
func (in *Ingester) CachedExtraction(sha, extractor string) (*Extracted, bool) {
	x := new(Extracted)
	if !in.cached(index.CacheExtraction, sha, extractor, x) {
		return nil, false
	}
	return x, true
}

// CacheExtraction stores an extraction.
func (in *Ingester) CacheExtraction(sha, extractor string, x *Extracted) {
	in.cache(index.CacheExtraction, sha, extractor, x)
}

// CachedEnrichment returns the cached enrichment of a note's bytes by an
// entity extractor, if any.
func (in *Ingester) CachedEnrichment(sha, extractor string) (*graph.Enrichment, bool) {
	e := new(graph.Enrichment)
	if !in.cached(index.CacheEnrichment, sha, extractor, e) {
		return nil, false
	}
	return e, true
}

// CacheEnrichment stores an enrichment.
func (in *Ingester) CacheEnrichment(sha, extractor string, e *graph.Enrichment) {
	in.cache(index.CacheEnrichment, sha, extractor, e)
}

func (in *Ingester) cached(c index.Cache, sha, plugin string, v any) bool {
	b, ok, err := in.store.Cached(c, sha, plugin)
	if err == nil && ok {
		err = json.Unmarshal(b, v)
	}
	if err != nil {
		in.log.Warn("plugin cache unreadable", "cache", string(rune(c)), "err", err)
		return false
	}
	return ok
}

func (in *Ingester) cache(c index.Cache, sha, plugin string, v any) {
	b, err := json.Marshal(v)
	if err == nil {
		err = in.store.PutCache(c, sha, plugin, b)
	}
	if err != nil {
		in.log.Warn("could not write to a plugin cache", "cache", string(rune(c)), "err", err)
	}
}
