// Package ipc is ragd's local API: the wire types, the HTTP/JSON handler
// served on the daemon's Unix socket, the listener that guards it, and the
// typed Client that ragctl, editor integrations written in Go and the tests
// use.
//
// The protocol is HTTP/1.1 with JSON bodies on a Unix socket, under paths
// versioned /v1/..., so that `curl --unix-socket` works. See
// docs/protocol.md.
package ipc

// ProtocolVersion is sent by both sides in the Ragd-Protocol-Version
// header. It is bumped for every change a client could notice; additions of
// optional fields do not need a bump.
//
// The daemon answers clients of its own version and older ones; a client
// newer than the daemon gets 426 Upgrade Required.
//
// History:
//
//	1: search, status, reindex, events (NDJSON stream), runs; then, as
//	   optional additions within 1: graph queries (/v1/graph/{query}), the
//	   hybrid search fields (mode, channels, weights, fusion, explain,
//	   no_rerank; grounded, degraded, suggestions, embed_ms), context
//	   blocks (/v1/context), related notes (/v1/similar) and plugin status
//	   (/v1/plugins).
//	2: the lexical channel is named "lexical" (as its mode) in channels,
//	   weights, explain and degraded; "bm25", its name in 1, is still
//	   accepted in requests. Errors have kinds beyond 400, 404 and 500:
//	   503 (unavailable) and 504 (past the request's deadline), where 1
//	   answered 400 for any failure of a search or graph query. Then, as
//	   optional additions within 2: a file's indexed text
//	   (/v1/document); snippets and passages in search (passages,
//	   snippet_width; snippet, matches); the status state "embedding"
//	   (files indexed, vectors pending; a client that does not know it
//	   should read it as indexing) and the status fields disk_full,
//	   offline, held_deletions, unreadable and special files.
const ProtocolVersion = 2

// Header names.
const (
	HeaderProtocol = "Ragd-Protocol-Version"
)

// Request limits enforced by the handler.
const (
	MaxRequestBytes = 1 << 20 // largest accepted request body
	MaxQueryBytes   = 4096    // longest accepted query string
	MaxK            = 1000    // most results one search may ask for
	DefaultK        = 10
	MaxPassages     = 4    // most passages of one note a search may ask for
	MaxSnippetWidth = 4096 // widest snippet, in characters
)
