// Package llmentities is the optional model-based entity extractor. It is
// off by default: configure it as an extractor for notes to enrich them
// with entities and relations found by a language model. Unlike the file
// extractors it does not convert anything — Extraction.Text is the note
// unchanged — it only adds Entities and Relations.
//
// The note is split into chunks of at most max_chars characters: a
// heading starts a new chunk (so an edit re-sends only its own section),
// paragraphs are packed greedily, and longer paragraphs are split by
// lines. Each chunk goes to an OpenAI-compatible POST
// {base_url}/chat/completions with temperature 0 and a strict
// response_format json_schema (entities: name, type, aliases, confidence;
// relations: subject, predicate, object, confidence). The default
// base_url, http://localhost:11434/v1, is Ollama's OpenAI route: notes
// leave the machine only if base_url says so. A fenced ```json reply is
// tolerated. Entities and relations carry the chunk's first line; those
// below min_confidence are dropped.
//
// Replies are cached under sha256(model, prompt version, chunk text), so
// an unchanged chunk is never sent twice: in memory (an LRU of
// cache_entries chunks) and, with cache_dir, on disk as one JSON file per
// chunk, written atomically. cache_dir is this plugin's own directory; it
// must not be inside a vault, or the cache files would be indexed.
package llmentities
