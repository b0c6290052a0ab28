package ipc

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// GraphQueries are the graph queries, in the order errors list them.
var GraphQueries = []string{GraphBacklinks, GraphLinks, GraphNeighbors, GraphEntities, GraphUnresolved}

// Graph query limits.
const (
	MaxGraphHops      = 3    // neighbors: hops 1 (default) to MaxGraphHops
	DefaultGraphLimit = 1000 // rows answered unless a request asks for fewer
)

// DecodeGraphRequest reads and checks GET /v1/graph/{query}: the query
// named by the path, and its parameters (vault, note, entity, hops, type,
// limit). An unknown query is a 404; a missing note or entity, or a bad
// number, a 400.
func DecodeGraphRequest(query string, q url.Values) (GraphRequest, error) {
	req := GraphRequest{Query: query, Vault: q.Get("vault"), Note: strings.TrimSpace(q.Get("note")),
		Entity: strings.TrimSpace(q.Get("entity")), Type: strings.TrimSpace(q.Get("type"))}
	if !slices.Contains(GraphQueries, query) {
		return req, NotFound("no graph query %q: use %s", query, strings.Join(GraphQueries, ", "))
	}
	for name, dst := range map[string]*int{"hops": &req.Hops, "limit": &req.Limit} {
		if s := q.Get(name); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return req, BadRequest("%s must be a non-negative number, got %q", name, s)
			}
			*dst = n
		}
	}
	switch {
	case (query == GraphBacklinks || query == GraphLinks) && req.Note == "":
		return req, BadRequest("%s needs note=NOTE (a path, file name or alias)", query)
	case query == GraphNeighbors && req.Entity == "":
		return req, BadRequest("neighbors needs entity=NOTE or entity=#tag")
	case req.Hops > MaxGraphHops:
		return req, BadRequest("hops must be 1 to %d, got %d", MaxGraphHops, req.Hops)
	}
	return req, nil
}
