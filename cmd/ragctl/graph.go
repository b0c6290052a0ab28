package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ragd/ragd/ipc"
)

const graphUsage = `usage: ragctl graph backlinks NOTE      links pointing at a note
       ragctl graph links NOTE          links a note holds
       ragctl graph neighbors ENTITY    notes and tags near a note or #tag [-hops N]
       ragctl graph entities            notes, tags and typed entities, most referenced first [-type note|tag|person|…]
       ragctl graph unresolved          links to notes that do not exist
flags: -vault V  -json  -limit N`

// runGraph answers entity-graph queries: backlinks, links, neighbors,
// entities and unresolved links.
func runGraph(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(e.stderr, graphUsage)
		return exitUsage
	}
	sub := args[0]
	fs := e.flags("graph " + sub)
	vault := fs.String("vault", "", "only this vault")
	hops := fs.Int("hops", 1, "neighbors: how many links away (1-3)")
	typ := fs.String("type", "", "entities: note, tag, or a model-found type (person, organization, …)")
	limit := fs.Int("limit", 0, "at most this many rows")
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args[1:]); err != nil {
		return exitUsage
	}
	arg := strings.Join(fs.Args(), " ")
	req := ipc.GraphRequest{Query: sub, Vault: *vault, Limit: *limit}
	switch sub {
	case ipc.GraphBacklinks, ipc.GraphLinks:
		req.Note = arg
	case ipc.GraphNeighbors:
		req.Entity, req.Hops = arg, *hops
	case ipc.GraphEntities:
		req.Type = *typ
	case ipc.GraphUnresolved:
	default:
		fmt.Fprintf(e.stderr, "ragctl graph: unknown query %q\n%s\n", sub, graphUsage)
		return exitUsage
	}
	if arg == "" && (req.Note == "" && (sub == ipc.GraphBacklinks || sub == ipc.GraphLinks) || sub == ipc.GraphNeighbors) {
		fmt.Fprintln(e.stderr, graphUsage)
		return exitUsage
	}
	c := e.client()
	defer c.Close()
	resp, err := c.Graph(ctx, req)
	if err != nil {
		return e.fail(err)
	}
	if *asJSON {
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
