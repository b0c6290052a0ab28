package reference

import (
	"github.com/ragd/ragd/index/graph"
	"slices"
	"strings"
)

// docNode is a searchable note's part of the in-memory graph.
type docNode struct {
	vault, path, title string
	chunks             int // how many chunks the note has
	names              []string
	rels               []graph.Relation
	stems              []string
	facts              []graph.Fact
}

// inRef is an incoming edge: relation rel of document src.
type inRef struct {
	src graph.DocID
	rel int
}

// Graph is the in-memory graph of the searchable notes: names and incoming
// edges per vault, built by the index from the g/ records at open and kept
// in step with every committed write. A Graph is not safe for concurrent
// use: the index guards it with the same lock as its postings, so a query
// never sees a note's graph and postings disagree.
type Graph struct {
	docs  map[graph.DocID]*docNode
	names map[string]map[string][]graph.DocID // vault → name key → notes
	in    map[string]map[string][]inRef       // vault → target key → edges
	// stems maps the analysed form of every note name, alias, tag and
	// typed entity name ("restic backup") to the entity keys it names (a
	// note's path key, "#tag" or "@entity"), per vault: how the graph
	// channel finds entities in a query.
	stems map[string]map[string][]string
	// facts indexes the facts of the notes by the typed entities they
	// relate (subject and object), per vault.
	facts map[string]map[string][]factRef
	tally tally // sizes, counts.go
	// namesGen counts the changes to names (AddNames, Remove), so that a
	// reader may keep what Resolve answered while it stays the same.
	namesGen uint64
}

// factRef is fact i of document src.
type factRef struct {
	src graph.DocID
	i   int
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{docs: make(map[graph.DocID]*docNode), names: make(map[string]map[string][]graph.DocID),
		in: make(map[string]map[string][]inRef), stems: make(map[string]map[string][]string),
		facts: make(map[string]map[string][]factRef), tally: newTally()}
}

func (g *Graph) addStem(vault, k, entity string) {
	if k == "" {
		return
	}
	m := g.stems[vault]
	if m == nil {
		m = make(map[string][]string)
		g.stems[vault] = m
	}
	if !slices.Contains(m[k], entity) {
		m[k] = append(m[k], entity)
	}
}

func (g *Graph) dropStem(vault, k, entity string) {
	m := g.stems[vault]
	if m == nil {
		return
	}
	m[k] = slices.DeleteFunc(m[k], func(e string) bool { return e == entity })
	if len(m[k]) == 0 {
		delete(m, k)
	}
}

// Add adds the record of note id (vault, path, title, and how many chunks
// it has); a note already present must be removed first.
func (g *Graph) Add(id graph.DocID, vault, path, title string, chunks int, rec *graph.Record) {
	g.AddNames(id, vault, path, title, chunks, rec.Names)
	g.AddRelations(id, rec)
}

// AddNames adds note id with only the names it answers to, which is all
// Resolve needs; AddRelations adds the rest of its record later. (The
// index loads every note's names first, so that lexical search can resolve
// link targets while the relations are still loading.) A note already
// present must be removed first.
func (g *Graph) AddNames(id graph.DocID, vault, path, title string, chunks int, names []string) {
	d := &docNode{vault: vault, path: path, title: title, chunks: chunks, names: names}
	g.docs[id] = d
	g.namesGen++
	byName := g.names[vault]
	if byName == nil {
		byName = make(map[string][]graph.DocID)
		g.names[vault] = byName
	}
	for _, n := range d.names {
		byName[n] = append(byName[n], id)
		if len(byName[n]) == 1 {
			g.nameAppeared(vault, n)
		}
	}
}

// AddRelations adds the relations, stems and facts of rec to note id,
// added by AddNames without them; it does nothing for a note not in the
// graph.
func (g *Graph) AddRelations(id graph.DocID, rec *graph.Record) {
	d := g.docs[id]
	if d == nil {
		return
	}
	d.rels, d.stems, d.facts = rec.Relations, rec.Stems, rec.Facts
	vault := d.vault
	g.countRels(d, 1)
	in := g.in[vault]
	if in == nil {
		in = make(map[string][]inRef)
		g.in[vault] = in
	}
	for i, r := range d.rels {
		if r.Type == graph.RelTagged && len(in[r.Target]) == 0 || r.Type == graph.RelMentions {
			g.addStem(vault, r.Stem, r.Target)
		}
		if len(in[r.Target]) == 0 && strings.HasPrefix(r.Target, "#") {
			g.tally.tags++
		}
		in[r.Target] = append(in[r.Target], inRef{id, i})
	}
	for _, k := range rec.Stems {
		g.addStem(vault, k, graph.NameKey(d.path))
	}
	g.addFacts(id, vault, d.facts)
}

// Remove drops note id, if present.
func (g *Graph) Remove(id graph.DocID) {
	d := g.docs[id]
	if d == nil {
		return
	}
	delete(g.docs, id)
	g.namesGen++
	names := g.names[d.vault]
	for _, n := range d.names {
		names[n] = without(names[n], id)
		if len(names[n]) == 0 {
			delete(names, n)
			g.nameGone(d.vault, n)
		}
	}
	g.countRels(d, -1)
	for _, k := range d.stems {
		g.dropStem(d.vault, k, graph.NameKey(d.path))
	}
	in := g.in[d.vault]
	for _, r := range d.rels {
		if len(in[r.Target]) == 0 {
			continue
		}
		refs := in[r.Target][:0]
		for _, e := range in[r.Target] {
			if e.src != id {
				refs = append(refs, e)
			}
		}
		if len(refs) == 0 {
			delete(in, r.Target)
			if strings.HasPrefix(r.Target, "#") {
				g.tally.tags--
			}
			if r.Type == graph.RelTagged {
				g.dropStem(d.vault, r.Stem, r.Target)
			}
		} else {
			in[r.Target] = refs
		}
	}
	g.dropMentionStems(d)
	g.removeFacts(id, d)
}

func without(ids []graph.DocID, id graph.DocID) []graph.DocID {
	out := ids[:0]
	for _, x := range ids {
		if x != id {
			out = append(out, x)
		}
	}
	return out
}

// resolve returns the notes a target key names in a vault. A tag key
// resolves to nothing (tags are entities of their own).
func (g *Graph) resolve(vault, target string) []graph.DocID {
	if len(target) > 0 && target[0] == '#' {
		return nil
	}
	return g.names[vault][target]
}

// Has reports whether note id is in the graph.
func (g *Graph) Has(id graph.DocID) bool { return g.docs[id] != nil }

// Len is the number of notes in the graph.
func (g *Graph) Len() int { return len(g.docs) }

// NamesGen changes whenever a note's names are added or removed: Resolve
// answers the same while it does not.
func (g *Graph) NamesGen() uint64 { return g.namesGen }

// Resolve returns the notes a target key names in a vault (nothing for a
// tag key).
func (g *Graph) Resolve(vault, target string) []graph.DocID { return g.resolve(vault, target) }
