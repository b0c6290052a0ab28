package daemon

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
)

// defaultGraphLimit bounds graph answers unless the request asks for fewer.
const defaultGraphLimit = 1000

// Graph implements ipc.Backend.
func (d *Daemon) Graph(ctx context.Context, req ipc.GraphRequest) (*ipc.GraphResponse, error) {
	if req.Vault != "" {
		if _, ok := d.vaults[req.Vault]; !ok {
			return nil, ipc.NotFound("no vault named %q", req.Vault)
		}
	}
	limit := req.Limit
	if limit <= 0 || limit > defaultGraphLimit {
		limit = defaultGraphLimit
	}
	resp := &ipc.GraphResponse{Query: req.Query}
	var links []index.LinkRef
	var ents []index.EntityInfo
	var err error
	switch req.Query {
	case ipc.GraphBacklinks, ipc.GraphLinks:
		if strings.TrimSpace(req.Note) == "" {
			return nil, ipc.BadRequest("%s needs note=NOTE (a path, file name or alias)", req.Query)
		}
		if req.Query == ipc.GraphBacklinks {
			links, err = d.store.Backlinks(req.Vault, req.Note)
		} else {
			links, err = d.store.Links(req.Vault, req.Note)
		}
	case ipc.GraphUnresolved:
		links = d.store.Unresolved(req.Vault)
	case ipc.GraphNeighbors:
		if strings.TrimSpace(req.Entity) == "" {
			return nil, ipc.BadRequest("neighbors needs entity=NOTE or entity=#tag")
		}
		hops := req.Hops
		if hops == 0 {
			hops = 1
		}
		if hops > 3 {
			return nil, ipc.BadRequest("hops must be 1 to 3, got %d", hops)
		}
		ents, err = d.store.Neighbors(req.Vault, req.Entity, hops)
	case ipc.GraphEntities:
		// note, tag, or a typed entity's type (person, ...; any case)
		ents = d.store.Entities(req.Vault, strings.TrimSpace(req.Type))
	default:
		return nil, ipc.NotFound("no graph query %q: use backlinks, links, neighbors, entities or unresolved", req.Query)
	}
	var nf *index.ErrNoSuchNote
	if errors.As(err, &nf) {
		return nil, ipc.NotFound("%v", err)
	}
	if err != nil {
		return nil, ipc.BadRequest("%v", err)
	}
	resp.Total = len(links) + len(ents)
	for i, l := range links {
		if i == limit {
			break
		}
		resp.Links = append(resp.Links, ipc.GraphLink{Vault: l.Vault, Source: l.Source, SourceTitle: l.SourceTitle,
			Type: l.Type, Target: l.Raw, Heading: l.Heading, Block: l.Block, Line: l.Line,
			Provenance: l.Provenance, Resolved: l.Resolved})
	}
	for i, e := range ents {
		if i == limit {
			break
		}
		resp.Entities = append(resp.Entities, ipc.GraphEntity{Vault: e.Vault, Type: e.Type, Name: e.Name,
			Path: e.Path, Aliases: e.Aliases, Incoming: e.Incoming, Hops: e.Hops})
	}
	return resp, nil
}

// graphStatusEvery bounds how often status recomputes the graph summary
// while the index keeps changing (it walks every relation).
const graphStatusEvery = 2 * time.Second

// graphStatus summarises the graph and checks its in-memory consistency,
// cached until the index changes (and at most every graphStatusEvery).
func (d *Daemon) graphStatus() *ipc.GraphStatus {
	gen := d.store.Generation()
	d.mu.Lock()
	c := d.graphCache
	d.mu.Unlock()
	if c.status != nil && (c.gen == gen || time.Since(c.at) < graphStatusEvery) {
		return c.status
	}
	gs := d.store.GraphStats()
	st := &ipc.GraphStatus{Notes: gs.Notes, Tags: gs.Tags, Typed: gs.Typed, Relations: gs.Relations, Unresolved: gs.Unresolved, Consistent: gs.Problem == ""}
	st.Problem = gs.Problem
	d.mu.Lock()
	d.graphCache = graphCache{gen: gen, at: time.Now(), status: st}
	d.mu.Unlock()
	return st
}

type graphCache struct {
	gen    uint64
	at     time.Time
	status *ipc.GraphStatus
}
