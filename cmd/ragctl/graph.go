package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ragd/ragd/ipc"
)

// graphQueries are the graph queries, in the order help lists them.
var graphQueries = []string{ipc.GraphBacklinks, ipc.GraphLinks, ipc.GraphNeighbors, ipc.GraphEntities, ipc.GraphUnresolved}

// entityTypes are the entity types offered for -type: notes, tags and the
// types a model finds.
var entityTypes = []string{"note", "tag", "person", "organization", "product", "place", "event", "concept"}

// graphCmd is ragctl graph: backlinks, links, neighbors, entities and
// unresolved links.
type graphCmd struct {
	vault, typ  string
	hops, limit int
	json        bool
}

func (c *graphCmd) flags(fs *FlagSet) {
	fs.vault(&c.vault, false, "only this `VAULT`")
	fs.intRange(&c.hops, "hops", 1, 1, 3, "neighbors: how many links away, `N` from 1 to 3")
	fs.Var(&wordsFlag{p: &c.typ, words: entityTypes}, "type", "entities: note, tag, or a model-found `type` (person, organization, …)")
	fs.intRange(&c.limit, "limit", 0, 0, 1<<30, "at most `N` rows (0: the daemon's limit)")
	fs.jsonFlag(&c.json)
}

func (c *graphCmd) completeArg(arg int, prev []string) completion {
	switch {
	case arg == 0:
		return completion{words: graphQueries}
	case arg == 1 && (prev[0] == ipc.GraphBacklinks || prev[0] == ipc.GraphLinks || prev[0] == ipc.GraphNeighbors):
		return completion{source: sourceNotes}
	}
	return completion{}
}

func (c *graphCmd) run(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		return e.usage("graph", "no query given: "+strings.Join(graphQueries, ", "))
	}
	sub := args[0]
	arg := strings.Join(args[1:], " ")
	req := ipc.GraphRequest{Query: sub, Vault: c.vault, Limit: c.limit}
	switch sub {
	case ipc.GraphBacklinks, ipc.GraphLinks:
		req.Note = arg
	case ipc.GraphNeighbors:
		req.Entity, req.Hops = arg, c.hops
	case ipc.GraphEntities:
		req.Type = c.typ
	case ipc.GraphUnresolved:
	default:
		return e.usage("graph", fmt.Sprintf("unknown query %q: want one of %s", sub, strings.Join(graphQueries, ", ")))
	}
	needsArg := sub == ipc.GraphBacklinks || sub == ipc.GraphLinks || sub == ipc.GraphNeighbors
	switch {
	case needsArg && strings.TrimSpace(arg) == "":
		return e.usage("graph", sub+" needs a note (path, file name, title or alias)")
	case !needsArg && arg != "":
		return e.usage("graph", sub+" takes no argument")
	}
	cl := e.client()
	defer cl.Close()
	resp, err := cl.Graph(ctx, req)
	if err != nil {
		return e.fail(err)
	}
	if c.json {
		writeJSON(e.stdout, resp)
	} else {
		printGraph(e.stdout, resp)
	}
	if resp.Total == 0 {
		return exitFail
	}
	return exitOK
}

func printGraph(w io.Writer, resp *ipc.GraphResponse) {
	if resp.Total == 0 {
		fmt.Fprintln(w, "nothing found")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, l := range resp.Links {
		target := l.Target
		if l.Heading != "" {
			target += "#" + l.Heading
		}
		if l.Block != "" {
			target += "#^" + l.Block
		}
		res := "unresolved"
		if len(l.Resolved) > 0 {
			res = "→ " + strings.Join(l.Resolved, ", ")
		}
		if l.Type == "tagged" {
			res = ""
		}
		fmt.Fprintf(tw, "%s:L%d\t%s\t%s\t%s\n", l.Source, l.Line, l.Type, target, res)
	}
	for _, en := range resp.Entities {
		name := en.Name
		if en.Type == "tag" {
			name = "#" + name
		}
		where := en.Path
		if len(en.Aliases) > 0 {
			where += "  (aka " + strings.Join(en.Aliases, ", ") + ")"
		}
		hops := ""
		if en.Hops > 0 {
			hops = fmt.Sprintf("%d hop", en.Hops)
			if en.Hops > 1 {
				hops += "s"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%d in\t%s\t%s\n", en.Type, name, en.Incoming, where, hops)
	}
	tw.Flush()
	if shown := len(resp.Links) + len(resp.Entities); shown < resp.Total {
		fmt.Fprintf(w, "… %d more (use -limit)\n", resp.Total-shown)
	}
}
