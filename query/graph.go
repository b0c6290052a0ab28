package query

import (
	"context"
	"errors"
	"strings"

	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/ipc"
)

// GraphIndex is what graph queries read of the entity graph.
type GraphIndex interface {
	Backlinks(vault, note string) ([]graph.LinkRef, error)
	Links(vault, note string) ([]graph.LinkRef, error)
	Unresolved(vault string) []graph.LinkRef
	Neighbors(vault, entity string, hops int) ([]graph.EntityInfo, error)
	Entities(vault, typ string) []graph.EntityInfo
}

// Graph query limits (ipc's: a request is checked when it is decoded).
const (
	DefaultGraphLimit = ipc.DefaultGraphLimit
	MaxGraphHops      = ipc.MaxGraphHops
)

// Graph answers a graph query (ipc.GraphBacklinks, ...), checked when it
// was decoded (ipc.DecodeGraphRequest): it checks the vault against the
// configured ones, runs the query on gi and returns at most req.Limit
// rows (DefaultGraphLimit when unset), with Total counting them all.
func (e *Engine) Graph(ctx context.Context, gi GraphIndex, req ipc.GraphRequest) (*ipc.GraphResponse, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Vault != "" {
		if err := e.checkVaults([]string{req.Vault}); err != nil {
			return nil, err
		}
	}
	limit := req.Limit
	if limit <= 0 || limit > DefaultGraphLimit {
		limit = DefaultGraphLimit
	}
	var links []graph.LinkRef
	var ents []graph.EntityInfo
	var err error
	switch req.Query {
	case ipc.GraphBacklinks, ipc.GraphLinks:
		if req.Query == ipc.GraphBacklinks {
			links, err = gi.Backlinks(req.Vault, req.Note)
		} else {
			links, err = gi.Links(req.Vault, req.Note)
		}
	case ipc.GraphUnresolved:
		links = gi.Unresolved(req.Vault)
	case ipc.GraphNeighbors:
		hops := min(max(req.Hops, 1), MaxGraphHops)
		ents, err = gi.Neighbors(req.Vault, req.Entity, hops)
	case ipc.GraphEntities:
		// note, tag, or a typed entity's type (person, ...; any case)
		ents = gi.Entities(req.Vault, req.Type)
	default:
		return nil, ipc.NotFound("no graph query %q: use %s", req.Query, strings.Join(ipc.GraphQueries, ", "))
	}
	var nf *graph.ErrNoSuchNote
	if errors.As(err, &nf) {
		return nil, ipc.NotFound("%w", err)
	}
	if err != nil {
		return nil, err
	}
	resp := &ipc.GraphResponse{Query: req.Query, Total: len(links) + len(ents)}
	for _, l := range links[:min(len(links), limit)] {
		resp.Links = append(resp.Links, ipc.GraphLink{Vault: l.Vault, Source: l.Source, SourceTitle: l.SourceTitle,
			Type: l.Type, Target: l.Raw, Heading: l.Heading, Block: l.Block, Line: l.Line,
			Provenance: l.Provenance, Resolved: l.Resolved})
	}
	for _, x := range ents[:min(len(ents), limit)] {
		resp.Entities = append(resp.Entities, ipc.GraphEntity{Vault: x.Vault, Type: x.Type, Name: x.Name,
			Path: x.Path, Aliases: x.Aliases, Incoming: x.Incoming, Hops: x.Hops})
	}
	return resp, nil
}
