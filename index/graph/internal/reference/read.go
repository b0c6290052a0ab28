package reference

import (
	"fmt"
	"github.com/ragd/ragd/index/graph"
	"path"
	"sort"
	"strings"
)

// findNote resolves a note argument (path, file name, alias or title, in
// any vault unless vault is set).
func (g *Graph) findNote(vault, name string) ([]graph.DocID, error) {
	key := graph.NameKey(name)
	var ids []graph.DocID
	for v, names := range g.names {
		if vault == "" || v == vault {
			ids = append(ids, names[key]...)
		}
	}
	if len(ids) == 0 {
		// Not a path, file name or alias: a title, as search results show
		// notes ("Espresso Dialing In" for espresso.md).
		for id, d := range g.docs {
			if (vault == "" || d.vault == vault) && d.title != "" && graph.NameKey(d.title) == key {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		return nil, &graph.ErrNoSuchNote{Name: name}
	}
	sort.Slice(ids, func(i, j int) bool { return g.docs[ids[i]].path < g.docs[ids[j]].path })
	return ids, nil
}

// FindNotes resolves a note's name — its path, file name, alias or title,
// in any case — to the notes it names, in any vault unless vault is set.
// It returns *graph.ErrNoSuchNote when none has that name.
func (g *Graph) FindNotes(vault, name string) ([]graph.NoteRef, error) {
	ids, err := g.findNote(vault, name)
	if err != nil {
		return nil, err
	}
	out := make([]graph.NoteRef, len(ids))
	for i, id := range ids {
		d := g.docs[id]
		out[i] = graph.NoteRef{Vault: d.vault, Path: d.path}
	}
	return out, nil
}

func (g *Graph) linkRef(src graph.DocID, r graph.Relation) graph.LinkRef {
	d := g.docs[src]
	l := graph.LinkRef{Vault: d.vault, Source: d.path, SourceTitle: d.title, Relation: r}
	if r.Type == graph.RelMentions {
		return l // a typed entity, not a note
	}
	for _, id := range g.resolve(d.vault, r.Target) {
		l.Resolved = append(l.Resolved, g.docs[id].path)
	}
	sort.Strings(l.Resolved)
	return l
}

// Backlinks lists the relations of other notes (and the note itself) that
// point at the named note, through any of its names.
func (g *Graph) Backlinks(vault, note string) ([]graph.LinkRef, error) {
	ids, err := g.findNote(vault, note)
	if err != nil {
		return nil, err
	}
	var out []graph.LinkRef
	for _, id := range ids {
		d := g.docs[id]
		seen := make(map[inRef]bool)
		for _, n := range d.names {
			for _, e := range g.in[d.vault][n] {
				if !seen[e] {
					seen[e] = true
					out = append(out, g.linkRef(e.src, g.docs[e.src].rels[e.rel]))
				}
			}
		}
	}
	sortLinks(out)
	return out, nil
}

// Links lists the relations held by the named note.
func (g *Graph) Links(vault, note string) ([]graph.LinkRef, error) {
	ids, err := g.findNote(vault, note)
	if err != nil {
		return nil, err
	}
	var out []graph.LinkRef
	for _, id := range ids {
		for _, r := range g.docs[id].rels {
			out = append(out, g.linkRef(id, r))
		}
	}
	return out, nil
}

// Unresolved lists links to notes that do not exist (attachments, tags and
// typed entities excluded), in vault ("" for all).
func (g *Graph) Unresolved(vault string) []graph.LinkRef {
	var out []graph.LinkRef
	for id, d := range g.docs {
		if vault != "" && d.vault != vault {
			continue
		}
		for _, r := range d.rels {
			if r.Type == graph.RelTagged || r.Type == graph.RelMentions || isAttachment(r.Raw) || len(g.resolve(d.vault, r.Target)) > 0 {
				continue
			}
			out = append(out, g.linkRef(id, r))
		}
	}
	sortLinks(out)
	return out
}

func sortLinks(ls []graph.LinkRef) {
	sort.Slice(ls, func(i, j int) bool {
		a, b := ls[i], ls[j]
		if a.Vault != b.Vault {
			return a.Vault < b.Vault
		}
		if a.Source != b.Source {
			return a.Source < b.Source
		}
		return a.Start < b.Start
	})
}

// Entities lists notes, tags and typed entities in vault ("" for all), most
// referenced first. typ is "" for all, graph.EntityNote, graph.EntityTag, or a typed
// entity's type (PERSON, ...; any case).
func (g *Graph) Entities(vault, typ string) []graph.EntityInfo {
	var out []graph.EntityInfo
	if typ == "" || typ == graph.EntityNote {
		for id, d := range g.docs {
			if vault == "" || d.vault == vault {
				out = append(out, g.noteInfo(id))
			}
		}
	}
	if typ == "" || typ == graph.EntityTag {
		for v, in := range g.in {
			if vault != "" && v != vault {
				continue
			}
			for target, refs := range in {
				if strings.HasPrefix(target, "#") {
					out = append(out, graph.EntityInfo{Vault: v, Key: target, Type: graph.EntityTag, Name: target[1:], Incoming: len(refs)})
				}
			}
		}
	}
	if typ != graph.EntityNote && typ != graph.EntityTag {
		for v, in := range g.in {
			if vault != "" && v != vault {
				continue
			}
			for target := range in {
				if !isTyped(target) {
					continue
				}
				for _, e := range g.typedInfos(v, target) {
					if typ == "" || strings.EqualFold(e.Type, typ) {
						out = append(out, e)
					}
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Incoming != out[j].Incoming {
			return out[i].Incoming > out[j].Incoming
		}
		if a, b := out[i].Vault+out[i].Key, out[j].Vault+out[j].Key; a != b {
			return a < b
		}
		return out[i].Type < out[j].Type
	})
	return out
}

func (g *Graph) noteInfo(id graph.DocID) graph.EntityInfo {
	d := g.docs[id]
	e := graph.EntityInfo{Vault: d.vault, Key: graph.NameKey(d.path), Type: graph.EntityNote, Name: d.title, Path: d.path}
	base := graph.NameKey(path.Base(d.path))
	for _, n := range d.names {
		if n != e.Key && n != base {
			e.Aliases = append(e.Aliases, n)
		}
		e.Incoming += len(g.in[d.vault][n])
	}
	return e
}

// Neighbors walks up to hops links (either direction) from an entity: a
// note (by path, name or alias), a tag ("#tag") or a typed entity
// ("@name"; its facts and the entities mentioned in the same chunk are
// its neighbours too).
func (g *Graph) Neighbors(vault, entity string, hops int) ([]graph.EntityInfo, error) {
	type node struct {
		vault, key string // key is a note's path key or a "#tag"
	}
	var start []node
	if strings.HasPrefix(strings.TrimSpace(entity), "#") {
		for v := range g.in {
			if vault == "" || v == vault {
				if _, ok := g.in[v][graph.TagKey(entity)]; ok {
					start = append(start, node{v, graph.TagKey(entity)})
				}
			}
		}
		if len(start) == 0 {
			return nil, fmt.Errorf("no indexed note has the tag %s", entity)
		}
	} else if e := strings.TrimSpace(entity); isTyped(e) {
		key := graph.EntityKey(e[1:])
		for v := range g.in {
			if (vault == "" || v == vault) && len(g.typedInfos(v, key)) > 0 {
				start = append(start, node{v, key})
			}
		}
		if len(start) == 0 {
			return nil, fmt.Errorf("no indexed note mentions the entity %s", e[1:])
		}
	} else {
		ids, err := g.findNote(vault, entity)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			start = append(start, node{g.docs[id].vault, graph.NameKey(g.docs[id].path)})
		}
	}
	dist := make(map[node]int)
	for _, n := range start {
		dist[n] = 0
	}
	frontier := start
	for h := 1; h <= hops && len(frontier) > 0; h++ {
		var next []node
		visit := func(n node) {
			if _, ok := dist[n]; !ok {
				dist[n] = h
				next = append(next, n)
			}
		}
		for _, n := range frontier {
			for _, id := range g.neighborsOf(n.vault, n.key) {
				visit(node{n.vault, id})
			}
		}
		frontier = next
	}
	var out []graph.EntityInfo
	for n, h := range dist {
		if h == 0 {
			continue
		}
		var e graph.EntityInfo
		if strings.HasPrefix(n.key, "#") {
			e = graph.EntityInfo{Vault: n.vault, Key: n.key, Type: graph.EntityTag, Name: n.key[1:], Incoming: len(g.in[n.vault][n.key])}
		} else if infos := g.typedInfos(n.vault, n.key); isTyped(n.key) && len(infos) > 0 {
			e = infos[0]
		} else {
			ids := g.names[n.vault][n.key]
			if len(ids) == 0 {
				continue
			}
			e = g.noteInfo(ids[0])
		}
		e.Hops = h
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Hops != out[j].Hops {
			return out[i].Hops < out[j].Hops
		}
		return out[i].Vault+out[i].Key < out[j].Vault+out[j].Key
	})
	return out, nil
}

// neighborsOf returns the keys adjacent to a note path key, a tag or a
// typed entity: notes, tags and typed entities it links to or mentions,
// and notes linking to it (typedNeighbors for a typed entity).
func (g *Graph) neighborsOf(vault, key string) []string {
	var out []string
	if isTyped(key) && len(g.names[vault][key]) == 0 {
		return g.typedNeighbors(vault, key)
	}
	if strings.HasPrefix(key, "#") {
		for _, e := range g.in[vault][key] {
			out = append(out, graph.NameKey(g.docs[e.src].path))
		}
		return out
	}
	for _, id := range g.names[vault][key] {
		d := g.docs[id]
		for _, r := range d.rels {
			if strings.HasPrefix(r.Target, "#") || r.Type == graph.RelMentions {
				out = append(out, r.Target)
				continue
			}
			for _, t := range g.resolve(vault, r.Target) {
				out = append(out, graph.NameKey(g.docs[t].path))
			}
		}
		for _, n := range d.names {
			for _, e := range g.in[vault][n] {
				out = append(out, graph.NameKey(g.docs[e.src].path))
			}
		}
	}
	return out
}

// Check walks the whole graph: it returns the graph's sizes counted again
// and the first inconsistency found between its notes, its edge and fact
// indexes and the sizes Counts keeps. (The index checks that the graph
// holds exactly the searchable notes.) It costs a walk of every relation:
// status uses Counts.
func (g *Graph) Check() graph.Stats {
	var st graph.Stats
	st.Notes = len(g.docs)
	edges := 0
	for _, d := range g.docs {
		st.Relations += len(d.rels)
		for _, r := range d.rels {
			if r.Type != graph.RelTagged && r.Type != graph.RelMentions && !isAttachment(r.Raw) && len(g.resolve(d.vault, r.Target)) == 0 {
				st.Unresolved++
			}
		}
	}
	for _, in := range g.in {
		for target, refs := range in {
			if strings.HasPrefix(target, "#") {
				st.Tags++
			}
			for _, e := range refs {
				edges++
				d := g.docs[e.src]
				if (d == nil || e.rel >= len(d.rels) || d.rels[e.rel].Target != target) && st.Problem == "" {
					st.Problem = "edge index points at a missing relation of target " + target
				}
			}
		}
	}
	if edges != st.Relations && st.Problem == "" {
		st.Problem = "edge index and relations disagree"
	}
	var problem string
	st.Typed, st.Facts, problem = g.typedStats()
	if st.Problem == "" {
		st.Problem = problem
	}
	if c := g.Counts(); st.Problem == "" && c != st {
		st.Problem = fmt.Sprintf("kept counts %+v differ from the graph's %+v", c, st)
	}
	return st
}

// Embedded returns the notes that notes matching inScope embed (one
// level), so that text transcluded with ![[Note#Section]] is found when a
// search is scoped to the note that shows it; the result still cites the
// file that holds the text.
func (g *Graph) Embedded(inScope func(vault, path string) bool) map[[2]string]bool {
	out := make(map[[2]string]bool)
	for _, d := range g.docs {
		if !inScope(d.vault, d.path) {
			continue
		}
		for _, r := range d.rels {
			if r.Type != graph.RelEmbeds {
				continue
			}
			for _, id := range g.resolve(d.vault, r.Target) {
				out[[2]string{d.vault, g.docs[id].path}] = true
			}
		}
	}
	return out
}
