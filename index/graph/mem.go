package graph

import (
	"strings"
)

// DocID is the index's id of a note (index.DocID).
type DocID uint64

// ChunkRef names a chunk of a note by its ordinal.
type ChunkRef struct {
	Doc DocID
	Ord uint32
}

// The in-memory graph is laid out as a search engine lays out its
// postings, not as Go structs: every string is a symbol of one table
// (strs.go), a note is a fixed-size node, its relations and facts are
// fixed-size rows of flat arrays, and the adjacency — incoming edges per
// target, notes per name, entities per stem, facts per entity — is lists
// of small values in one arena each (lists.go). Nothing in it holds a
// pointer but the few arrays' headers, so the collector has nothing to
// scan, and a relation costs 40 bytes and an edge 8 instead of a
// 176-byte struct with its own strings and a slice per target.
//
// Changes append: a removed note leaves its rows behind until the graph is
// compacted (rebuilt from its live notes in the order they were added)
// once the dead outnumber the living.

// sspan is a run of rows of one of the graph's arrays.
type sspan struct{ off, n uint32 }

// node is a note of the graph.
type node struct {
	id                 DocID
	vault, path, title uint32 // symbols
	chunks             int32  // how many chunks the note has
	live, hasRels      bool
	names, stems       sspan // in Graph.strs
	rels               sspan // in Graph.rels
	facts              sspan // in Graph.facts
}

// crel is a relation (Relation) as the graph holds it: its strings as
// symbols, the rarely set ones (heading, block, alias, field, a confidence
// other than 1) behind extra.
type crel struct {
	typ, prov, target, raw, stem uint32
	extra                        uint32 // index in Graph.extras; 0: none
	chunk, line, start, length   int32
}

// relExtra holds a relation's rarely set fields.
type relExtra struct {
	heading, block, alias, field uint32
	confidence                   float64
}

// cfact is a Fact as the graph holds it.
type cfact struct {
	subject, predicate, object uint32
	chunk, line                int32
	confidence                 float64
}

// inRef is an incoming edge: relation rel of node src.
type inRef struct{ src, rel uint32 }

// factRef is fact i of node src.
type factRef struct{ src, i uint32 }

// The symbols New gives the relation types first, so that they are
// constants.
const (
	symLinksTo uint32 = iota + 1
	symEmbeds
	symTagged
	symMentions
)

// Graph is the in-memory graph of the searchable notes: names and incoming
// edges per vault, built by the index from the g/ records at open and kept
// in step with every committed write. A Graph is not safe for concurrent
// use: the index guards it with the same lock as its postings, so a query
// never sees a note's graph and postings disagree.
type Graph struct {
	syms   symtab
	docs   map[DocID]uint32 // note → its node
	nodes  []node
	strs   []uint32 // the nodes' names and stems
	rels   []crel
	extras []relExtra
	facts  []cfact
	vaults []uint32     // every vault a note was added to
	names  lists[DocID] // (vault, name key) → notes
	in     lists[inRef] // (vault, target key) → edges
	// stems maps the analysed form of every note name, alias, tag and
	// typed entity name ("restic backup") to the entity keys it names (a
	// note's path key, "#tag" or "@entity"), per vault: how the graph
	// channel finds entities in a query.
	stems lists[uint32]
	// byFact indexes the facts of the notes by the typed entities they
	// relate (subject and object), per vault.
	byFact lists[factRef]
	tally  tally // sizes, counts.go
	// namesGen counts the changes to names (AddNames, Remove), so that a
	// reader may keep what Resolve answered while it stays the same.
	namesGen uint64
	dead     int // nodes removed since the graph was built
	// compactions counts the rebuilds (tests see them)
	compactions int
}

// New returns an empty graph.
func New() *Graph {
	g := &Graph{syms: newSymtab(), docs: make(map[DocID]uint32), extras: make([]relExtra, 1),
		names: newLists[DocID](), in: newLists[inRef](), stems: newLists[uint32](), byFact: newLists[factRef](),
		tally: newTally()}
	for _, t := range []string{RelLinksTo, RelEmbeds, RelTagged, RelMentions} {
		g.syms.intern(t)
	}
	return g
}

func (g *Graph) str(s uint32) string                { return g.syms.str(s) }
func (g *Graph) strsOf(s sspan) []uint32            { return g.strs[s.off : s.off+s.n] }
func (g *Graph) relsOf(n *node) []crel              { return g.rels[n.rels.off : n.rels.off+n.rels.n] }
func (g *Graph) factsOf(n *node) []cfact            { return g.facts[n.facts.off : n.facts.off+n.facts.n] }
func (g *Graph) rel(e inRef) *crel                  { return &g.rels[g.nodes[e.src].rels.off+e.rel] }
func (g *Graph) isTag(s uint32) bool                { return strings.HasPrefix(g.str(s), "#") }
func (g *Graph) edges(vault, target uint32) []inRef { return g.in.get(pair(vault, target)) }

// node returns note id's node, nil if it is not in the graph. The pointer
// is good until the next change.
func (g *Graph) node(id DocID) *node {
	i, ok := g.docs[id]
	if !ok {
		return nil
	}
	return &g.nodes[i]
}

// sym returns the symbol of s, if it has one.
func (g *Graph) sym(s string) (uint32, bool) { return g.syms.lookup(s) }

// pathKey returns the symbol of the name key of node n's path.
func (g *Graph) pathKey(n *node) uint32 { return g.syms.intern(NameKey(g.str(n.path))) }

func (g *Graph) addStem(vault, k, entity uint32) {
	if k == 0 {
		return
	}
	if key := pair(vault, k); !g.stems.contains(key, entity) {
		g.stems.add(key, entity)
	}
}

func (g *Graph) dropStem(vault, k, entity uint32) {
	g.stems.removeFunc(pair(vault, k), func(e uint32) bool { return e == entity })
}

// Add adds the record of note id (vault, path, title, and how many chunks
// it has); a note already present must be removed first.
func (g *Graph) Add(id DocID, vault, path, title string, chunks int, rec *Record) {
	g.AddNames(id, vault, path, title, chunks, rec.Names)
	g.AddRelations(id, rec)
}

// AddNames adds note id with only the names it answers to, which is all
// Resolve needs; AddRelations adds the rest of its record later. (The
// index loads every note's names first, so that lexical search can resolve
// link targets while the relations are still loading.) A note already
// present must be removed first.
func (g *Graph) AddNames(id DocID, vault, path, title string, chunks int, names []string) {
	n := node{id: id, vault: g.syms.intern(vault), path: g.syms.intern(path), title: g.syms.intern(title),
		chunks: int32(chunks), live: true}
	n.names = g.appendStrs(names)
	g.addNode(n)
}

func (g *Graph) appendStrs(ss []string) sspan {
	s := sspan{off: uint32(len(g.strs)), n: uint32(len(ss))}
	for _, x := range ss {
		g.strs = append(grow(g.strs, 1), g.syms.intern(x))
	}
	return s
}

// addNode adds a node whose names are set and nothing else.
func (g *Graph) addNode(n node) {
	g.docs[n.id] = uint32(len(g.nodes))
	g.nodes = append(grow(g.nodes, 1), n)
	g.namesGen++
	if !containsSym(g.vaults, n.vault) {
		g.vaults = append(g.vaults, n.vault)
	}
	for _, name := range g.strsOf(n.names) {
		k := pair(n.vault, name)
		g.names.add(k, n.id)
		if g.names.count(k) == 1 {
			g.nameAppeared(n.vault, name)
		}
	}
}

func containsSym(xs []uint32, x uint32) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// AddRelations adds the relations, stems and facts of rec to note id,
// added by AddNames without them; it does nothing for a note not in the
// graph.
func (g *Graph) AddRelations(id DocID, rec *Record) {
	i, ok := g.docs[id]
	if !ok {
		return
	}
	n := &g.nodes[i]
	n.hasRels = true
	n.rels = sspan{off: uint32(len(g.rels)), n: uint32(len(rec.Relations))}
	for j := range rec.Relations {
		g.rels = append(grow(g.rels, 1), g.compactRel(&rec.Relations[j]))
	}
	n.stems = g.appendStrs(rec.Stems)
	n.facts = sspan{off: uint32(len(g.facts)), n: uint32(len(rec.Facts))}
	for _, f := range rec.Facts {
		g.facts = append(grow(g.facts, 1), cfact{subject: g.syms.intern(f.Subject), predicate: g.syms.intern(f.Predicate),
			object: g.syms.intern(f.Object), chunk: int32(f.Chunk), line: int32(f.Line), confidence: f.Confidence})
	}
	g.linkRels(i)
}

// linkRels adds node i's relations, stems and facts to the graph's
// indexes and tally.
func (g *Graph) linkRels(i uint32) {
	n := &g.nodes[i]
	g.countRels(n, 1)
	for j, r := range g.relsOf(n) {
		k := pair(n.vault, r.target)
		first := g.in.count(k) == 0
		if r.typ == symTagged && first || r.typ == symMentions {
			g.addStem(n.vault, r.stem, r.target)
		}
		if first && g.isTag(r.target) {
			g.tally.tags++
		}
		g.in.add(k, inRef{i, uint32(j)})
	}
	if n.stems.n > 0 {
		self := g.pathKey(n)
		for _, k := range g.strsOf(n.stems) {
			g.addStem(n.vault, k, self)
		}
	}
	for j, f := range g.factsOf(n) {
		g.byFact.add(pair(n.vault, f.subject), factRef{i, uint32(j)})
		if f.object != f.subject {
			g.byFact.add(pair(n.vault, f.object), factRef{i, uint32(j)})
		}
	}
}

func (g *Graph) compactRel(r *Relation) crel {
	c := crel{typ: g.syms.intern(r.Type), prov: g.syms.intern(r.Provenance), target: g.syms.intern(r.Target),
		raw: g.syms.intern(r.Raw), stem: g.syms.intern(r.Stem),
		chunk: int32(r.Chunk), line: int32(r.Line), start: int32(r.Start), length: int32(r.End - r.Start)}
	if r.Heading != "" || r.Block != "" || r.Alias != "" || r.Field != "" || r.Confidence != 1 {
		c.extra = uint32(len(g.extras))
		g.extras = append(grow(g.extras, 1), relExtra{heading: g.syms.intern(r.Heading), block: g.syms.intern(r.Block),
			alias: g.syms.intern(r.Alias), field: g.syms.intern(r.Field), confidence: r.Confidence})
	}
	return c
}

// relation is c as a Relation; its strings share the graph's memory.
func (g *Graph) relation(c *crel) Relation {
	r := Relation{Type: g.str(c.typ), Target: g.str(c.target), Raw: g.str(c.raw), Chunk: int(c.chunk),
		Line: int(c.line), Start: int(c.start), End: int(c.start) + int(c.length), Confidence: 1,
		Provenance: g.str(c.prov), Stem: g.str(c.stem)}
	if c.extra != 0 {
		x := &g.extras[c.extra]
		r.Heading, r.Block, r.Alias, r.Field = g.str(x.heading), g.str(x.block), g.str(x.alias), g.str(x.field)
		r.Confidence = x.confidence
	}
	return r
}

// alias and field are a relation's Alias and Field symbols.
func (g *Graph) alias(c *crel) uint32 { return g.extras[c.extra].alias }
func (g *Graph) field(c *crel) uint32 { return g.extras[c.extra].field }

// Remove drops note id, if present.
func (g *Graph) Remove(id DocID) {
	i, ok := g.docs[id]
	if !ok {
		return
	}
	delete(g.docs, id)
	n := &g.nodes[i]
	n.live = false
	g.namesGen++
	for _, name := range g.strsOf(n.names) {
		if g.names.removeFunc(pair(n.vault, name), func(x DocID) bool { return x == id }) == 0 {
			g.nameGone(n.vault, name)
		}
	}
	g.countRels(n, -1)
	if n.stems.n > 0 {
		self := g.pathKey(n)
		for _, k := range g.strsOf(n.stems) {
			g.dropStem(n.vault, k, self)
		}
	}
	for _, r := range g.relsOf(n) {
		k := pair(n.vault, r.target)
		if g.in.count(k) == 0 {
			continue
		}
		if g.in.removeFunc(k, func(e inRef) bool { return e.src == i }) == 0 {
			if g.isTag(r.target) {
				g.tally.tags--
			}
			if r.typ == symTagged {
				g.dropStem(n.vault, r.stem, r.target)
			}
		}
	}
	g.dropMentionStems(n)
	g.removeFacts(i, n)
	if g.dead++; g.dead > compactAfter && g.dead > len(g.docs) {
		g.compact()
	}
}

func (g *Graph) strings(syms []uint32) []string {
	if len(syms) == 0 {
		return nil
	}
	out := make([]string, len(syms))
	for i, s := range syms {
		out[i] = g.str(s)
	}
	return out
}

// resolve returns the notes a target key names in a vault. A tag key
// resolves to nothing (tags are entities of their own).
func (g *Graph) resolve(vault, target uint32) []DocID {
	if g.isTag(target) {
		return nil
	}
	return g.names.get(pair(vault, target))
}

// Has reports whether note id is in the graph.
func (g *Graph) Has(id DocID) bool { _, ok := g.docs[id]; return ok }

// Len is the number of notes in the graph.
func (g *Graph) Len() int { return len(g.docs) }

// NamesGen changes whenever a note's names are added or removed: Resolve
// answers the same while it does not.
func (g *Graph) NamesGen() uint64 { return g.namesGen }

// Resolve returns the notes a target key names in a vault (nothing for a
// tag key).
func (g *Graph) Resolve(vault, target string) []DocID {
	v, ok := g.sym(vault)
	t, ok2 := g.sym(target)
	if !ok || !ok2 {
		return nil
	}
	return g.resolve(v, t)
}

// EachName calls fn with every vault, name key and the notes it names (as
// Resolve answers), in no order; ids must not be kept.
func (g *Graph) EachName(fn func(vault, name string, ids []DocID)) {
	for k := range g.names.idx {
		if ids := g.names.get(k); len(ids) > 0 {
			fn(g.str(uint32(k>>32)), g.str(uint32(k)), ids)
		}
	}
}
