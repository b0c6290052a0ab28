package query

import (
	"strings"

	"github.com/ragd/ragd/ipc"
)

// The engine's requests and answers for the local API's: a decoded (and
// so checked, ipc.DecodeSearchRequest) request becomes a Request here,
// field for field, so a field added to the wire is carried where its
// meaning lives and the daemon only passes it on (wire_test.go fails when
// one is left behind).

// SearchRequest is the engine's request for POST /v1/search.
func SearchRequest(r ipc.SearchRequest) Request {
	return Request{Text: r.Query, K: r.K, Vaults: r.Vaults, PathPrefix: r.PathPrefix, NoText: r.NoText,
		Channels: r.Channels, Weights: r.Weights, Mode: r.Mode, Explain: r.Explain, Fusion: r.Fusion,
		NoRerank: r.NoRerank, Passages: r.Passages, SnippetWidth: r.SnippetWidth}
}

// ContextRequest is the engine's request and block options for POST
// /v1/context.
func ContextRequest(r ipc.ContextRequest) (Request, ContextOptions) {
	return Request{Text: r.Query, K: r.K, Vaults: r.Vaults, PathPrefix: r.PathPrefix, Mode: r.Mode},
		ContextOptions{Budget: r.Budget, Style: r.Style}
}

// Wire is the note as POST /v1/similar answers it: its best chunk's lines
// and heading path, and why it is related ("vector+links").
func (n SimilarNote) Wire() ipc.SimilarNote {
	return ipc.SimilarNote{Vault: n.Vault, Path: n.Path, AbsPath: n.AbsPath, Title: n.Title, Score: n.Score,
		LineStart: n.Best.LineStart, LineEnd: n.Best.LineEnd, Heading: strings.Join(n.Best.Heading, " > "),
		Why: strings.Join(n.Why, "+")}
}
