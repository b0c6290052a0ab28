package graph

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// LinkRef is a relation seen from a graph query.
type LinkRef struct {
	Vault       string
	Source      string // path of the note that holds the link
	SourceTitle string
	Relation
	Resolved []string // paths of the notes the target resolves to (none: unresolved)
}

// EntityInfo describes a note, tag or typed entity.
type EntityInfo struct {
	Vault    string
	Key      string // name key of a note, "#tag" for a tag, "@name" for a typed entity
	Type     string // EntityNote, EntityTag, or a typed entity's type (PERSON, ...)
	Name     string // title of a note, tag as written (lower case) for a tag, a typed entity's name
	Path     string // note path ("" for tags)
	Aliases  []string
	Incoming int // relations pointing at it
	Hops     int // for Neighbors: distance from the start
}

// ErrNoSuchNote is returned when a graph query names no indexed note.
type ErrNoSuchNote struct{ Name string }

func (e *ErrNoSuchNote) Error() string { return fmt.Sprintf("no indexed note is named %q", e.Name) }

// findNote resolves a note argument (path, file name, alias or title, in
// any vault unless vault is set).
func (g *Graph) findNote(vault, name string) ([]DocID, error) {
	var ids []DocID
	if key, ok := g.sym(NameKey(name)); ok {
		for _, v := range g.vaults {
			if vault == "" || g.str(v) == vault {
				ids = append(ids, g.names.get(pair(v, key))...)
			}
		}
	}
	if len(ids) == 0 {
		// Not a path, file name or alias: a title, as search results show
		// notes ("Espresso Dialing In" for espresso.md).
		key := NameKey(name)
		for i := range g.nodes {
			n := &g.nodes[i]
			if n.live && (vault == "" || g.str(n.vault) == vault) && n.title != 0 && NameKey(g.str(n.title)) == key {
				ids = append(ids, n.id)
			}
		}
	}
	if len(ids) == 0 {
		return nil, &ErrNoSuchNote{name}
	}
	sort.Slice(ids, func(i, j int) bool { return g.str(g.node(ids[i]).path) < g.str(g.node(ids[j]).path) })
	return ids, nil
}

// NoteRef names a note: its vault and vault-relative path.
type NoteRef struct{ Vault, Path string }

// FindNotes resolves a note's name — its path, file name, alias or title,
// in any case — to the notes it names, in any vault unless vault is set.
// It returns *ErrNoSuchNote when none has that name.
func (g *Graph) FindNotes(vault, name string) ([]NoteRef, error) {
	ids, err := g.findNote(vault, name)
	if err != nil {
		return nil, err
	}
	out := make([]NoteRef, len(ids))
	for i, id := range ids {
		n := g.node(id)
		out[i] = NoteRef{Vault: g.str(n.vault), Path: g.str(n.path)}
	}
	return out, nil
}

// linkRef is relation r of node src as a query shows it.
func (g *Graph) linkRef(src uint32, r *crel) LinkRef {
	n := &g.nodes[src]
	l := LinkRef{Vault: g.str(n.vault), Source: g.str(n.path), SourceTitle: g.str(n.title), Relation: g.relation(r)}
	if r.typ == symMentions {
		return l // a typed entity, not a note
	}
	for _, id := range g.resolve(n.vault, r.target) {
		l.Resolved = append(l.Resolved, g.str(g.node(id).path))
	}
	sort.Strings(l.Resolved)
	return l
}

// Backlinks lists the relations of other notes (and the note itself) that
// point at the named note, through any of its names.
func (g *Graph) Backlinks(vault, note string) ([]LinkRef, error) {
	ids, err := g.findNote(vault, note)
	if err != nil {
		return nil, err
	}
	var out []LinkRef
	for _, id := range ids {
		n := g.node(id)
		seen := make(map[inRef]bool)
		for _, name := range g.strsOf(n.names) {
			for _, e := range g.edges(n.vault, name) {
				if !seen[e] {
					seen[e] = true
					out = append(out, g.linkRef(e.src, g.rel(e)))
				}
			}
		}
	}
	sortLinks(out)
	return out, nil
}

// Links lists the relations held by the named note.
func (g *Graph) Links(vault, note string) ([]LinkRef, error) {
	ids, err := g.findNote(vault, note)
	if err != nil {
		return nil, err
	}
	var out []LinkRef
	for _, id := range ids {
		i := g.docs[id]
		rels := g.relsOf(&g.nodes[i])
		for j := range rels {
			out = append(out, g.linkRef(i, &rels[j]))
		}
	}
	return out, nil
}

// Unresolved lists links to notes that do not exist (attachments, tags and
// typed entities excluded), in vault ("" for all).
func (g *Graph) Unresolved(vault string) []LinkRef {
	var out []LinkRef
	for i := range g.nodes {
		n := &g.nodes[i]
		if !n.live || vault != "" && g.str(n.vault) != vault {
			continue
		}
		rels := g.relsOf(n)
		for j := range rels {
			r := &rels[j]
			if !g.unresolvable(r) || g.named(n.vault, r.target) {
				continue
			}
			out = append(out, g.linkRef(uint32(i), r))
		}
	}
	sortLinks(out)
	return out
}

func sortLinks(ls []LinkRef) {
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

// targets calls fn with every (vault, target) some relation points at, in
// vault ("" for all).
func (g *Graph) targets(vault string, fn func(v, target uint32, edges int)) {
	for k, s := range g.in.idx {
		if v := pairVault(k); vault == "" || g.str(v) == vault {
			fn(v, pairKey(k), int(s.n))
		}
	}
}

// Entities lists notes, tags and typed entities in vault ("" for all), most
// referenced first. typ is "" for all, EntityNote, EntityTag, or a typed
// entity's type (PERSON, ...; any case).
func (g *Graph) Entities(vault, typ string) []EntityInfo {
	var out []EntityInfo
	if typ == "" || typ == EntityNote {
		for i := range g.nodes {
			if n := &g.nodes[i]; n.live && (vault == "" || g.str(n.vault) == vault) {
				out = append(out, g.noteInfo(n))
			}
		}
	}
	if typ == "" || typ == EntityTag {
		g.targets(vault, func(v, target uint32, edges int) {
			if t := g.str(target); strings.HasPrefix(t, "#") {
				out = append(out, EntityInfo{Vault: g.str(v), Key: t, Type: EntityTag, Name: t[1:], Incoming: edges})
			}
		})
	}
	if typ != EntityNote && typ != EntityTag {
		g.targets(vault, func(v, target uint32, _ int) {
			if !isTyped(g.str(target)) {
				return
			}
			for _, e := range g.typedInfos(v, target) {
				if typ == "" || strings.EqualFold(e.Type, typ) {
					out = append(out, e)
				}
			}
		})
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

func (g *Graph) noteInfo(n *node) EntityInfo {
	p := g.str(n.path)
	e := EntityInfo{Vault: g.str(n.vault), Key: NameKey(p), Type: EntityNote, Name: g.str(n.title), Path: p}
	base := NameKey(path.Base(p))
	for _, name := range g.strsOf(n.names) {
		if s := g.str(name); s != e.Key && s != base {
			e.Aliases = append(e.Aliases, s)
		}
		e.Incoming += g.in.count(pair(n.vault, name))
	}
	return e
}

// Neighbors walks up to hops links (either direction) from an entity: a
// note (by path, name or alias), a tag ("#tag") or a typed entity
// ("@name"; its facts and the entities mentioned in the same chunk are
// its neighbours too).
func (g *Graph) Neighbors(vault, entity string, hops int) ([]EntityInfo, error) {
	type node struct {
		vault, key uint32 // key is a note's path key, a "#tag" or an "@entity"
	}
	var start []node
	if strings.HasPrefix(strings.TrimSpace(entity), "#") {
		if tag, ok := g.sym(TagKey(entity)); ok {
			for _, v := range g.vaults {
				if (vault == "" || g.str(v) == vault) && g.in.count(pair(v, tag)) > 0 {
					start = append(start, node{v, tag})
				}
			}
		}
		if len(start) == 0 {
			return nil, fmt.Errorf("no indexed note has the tag %s", entity)
		}
	} else if e := strings.TrimSpace(entity); isTyped(e) {
		if key, ok := g.sym(EntityKey(e[1:])); ok {
			for _, v := range g.vaults {
				if (vault == "" || g.str(v) == vault) && len(g.typedInfos(v, key)) > 0 {
					start = append(start, node{v, key})
				}
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
			n := g.node(id)
			if k, ok := g.sym(NameKey(g.str(n.path))); ok {
				start = append(start, node{n.vault, k})
			}
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
			for _, k := range g.neighborsOf(n.vault, n.key) {
				visit(node{n.vault, k})
			}
		}
		frontier = next
	}
	var out []EntityInfo
	for n, h := range dist {
		if h == 0 {
			continue
		}
		var e EntityInfo
		key := g.str(n.key)
		if strings.HasPrefix(key, "#") {
			e = EntityInfo{Vault: g.str(n.vault), Key: key, Type: EntityTag, Name: key[1:], Incoming: g.in.count(pair(n.vault, n.key))}
		} else if infos := g.typedInfos(n.vault, n.key); isTyped(key) && len(infos) > 0 {
			e = infos[0]
		} else {
			ids := g.names.get(pair(n.vault, n.key))
			if len(ids) == 0 {
				continue
			}
			e = g.noteInfo(g.node(ids[0]))
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
// and notes linking to it (typedNeighbors for a typed entity). Every key
// it returns has a symbol (a note's path key is one of its names).
func (g *Graph) neighborsOf(vault, key uint32) []uint32 {
	var out []uint32
	k := g.str(key)
	if isTyped(k) && g.names.count(pair(vault, key)) == 0 {
		return g.typedNeighbors(vault, key)
	}
	if strings.HasPrefix(k, "#") {
		for _, e := range g.edges(vault, key) {
			out = append(out, g.pathSym(&g.nodes[e.src]))
		}
		return out
	}
	for _, id := range g.names.get(pair(vault, key)) {
		n := g.node(id)
		for _, r := range g.relsOf(n) {
			if g.isTag(r.target) || r.typ == symMentions {
				out = append(out, r.target)
				continue
			}
			for _, t := range g.resolve(vault, r.target) {
				out = append(out, g.pathSym(g.node(t)))
			}
		}
		for _, name := range g.strsOf(n.names) {
			for _, e := range g.edges(vault, name) {
				out = append(out, g.pathSym(&g.nodes[e.src]))
			}
		}
	}
	return out
}

// pathSym is the symbol of the name key of note n's path, which is one of
// its names.
func (g *Graph) pathSym(n *node) uint32 {
	k := NameKey(g.str(n.path))
	for _, name := range g.strsOf(n.names) {
		if g.str(name) == k {
			return name
		}
	}
	s, _ := g.sym(k)
	return s
}

// Stats are the graph's sizes. Typed counts the typed entities a model
// found, Facts the facts between them.
type Stats struct {
	Notes, Tags, Relations, Unresolved int
	Typed, Facts                       int
	Problem                            string // "" when consistent
}

// Check walks the whole graph: it returns the graph's sizes counted again
// and the first inconsistency found between its notes, its edge and fact
// indexes and the sizes Counts keeps. (The index checks that the graph
// holds exactly the searchable notes.) It costs a walk of every relation:
// status uses Counts.
func (g *Graph) Check() Stats {
	var st Stats
	st.Notes = len(g.docs)
	edges := 0
	live := 0
	for i := range g.nodes {
		n := &g.nodes[i]
		if !n.live {
			continue
		}
		live++
		if j, ok := g.docs[n.id]; (!ok || j != uint32(i)) && st.Problem == "" {
			st.Problem = "note index points at the wrong node of " + g.str(n.path)
		}
		st.Relations += int(n.rels.n)
		for _, r := range g.relsOf(n) {
			if g.unresolvable(&r) && !g.named(n.vault, r.target) {
				st.Unresolved++
			}
		}
	}
	if live != len(g.docs) && st.Problem == "" {
		st.Problem = "note index and nodes disagree"
	}
	for k, s := range g.in.idx {
		target := pairKey(k)
		if g.isTag(target) {
			st.Tags++
		}
		for _, e := range g.in.data[s.off : s.off+s.n] {
			edges++
			if st.Problem != "" {
				continue
			}
			if int(e.src) >= len(g.nodes) || !g.nodes[e.src].live || e.rel >= g.nodes[e.src].rels.n ||
				g.rel(e).target != target || g.nodes[e.src].vault != pairVault(k) {
				st.Problem = "edge index points at a missing relation of target " + g.str(target)
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
	for i := range g.nodes {
		n := &g.nodes[i]
		if !n.live || !inScope(g.str(n.vault), g.str(n.path)) {
			continue
		}
		for _, r := range g.relsOf(n) {
			if r.typ != symEmbeds {
				continue
			}
			for _, id := range g.resolve(n.vault, r.target) {
				out[[2]string{g.str(n.vault), g.str(g.node(id).path)}] = true
			}
		}
	}
	return out
}
