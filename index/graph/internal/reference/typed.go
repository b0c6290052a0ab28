package reference

import (
	"fmt"
	"github.com/ragd/ragd/index/graph"
	"slices"
	"sort"
)

// Typed entities (enrich.go) in the in-memory graph. An "@" key behaves
// like a tag: it exists while some note mentions it, its names (the model's
// name and aliases) are stems the graph channel finds it by, and it is
// related to other typed entities by the notes' facts.

func (g *Graph) addFacts(id graph.DocID, vault string, facts []graph.Fact) {
	if len(facts) == 0 {
		return
	}
	m := g.facts[vault]
	if m == nil {
		m = make(map[string][]factRef)
		g.facts[vault] = m
	}
	for i, f := range facts {
		m[f.Subject] = append(m[f.Subject], factRef{id, i})
		if f.Object != f.Subject {
			m[f.Object] = append(m[f.Object], factRef{id, i})
		}
	}
}

func (g *Graph) removeFacts(id graph.DocID, d *docNode) {
	m := g.facts[d.vault]
	for _, f := range d.facts {
		for _, k := range []string{f.Subject, f.Object} {
			m[k] = slices.DeleteFunc(m[k], func(r factRef) bool { return r.src == id })
			if len(m[k]) == 0 {
				delete(m, k)
			}
		}
	}
	if m != nil && len(m) == 0 {
		delete(g.facts, d.vault)
	}
}

// dropMentionStems drops the stems of a removed note's mentions that no
// other mention of the same entity still carries. d is no longer in g.
func (g *Graph) dropMentionStems(d *docNode) {
	for _, r := range d.rels {
		if r.Type == graph.RelMentions && r.Stem != "" && !g.edgeWithStem(d.vault, r.Target, r.Stem) {
			g.dropStem(d.vault, r.Stem, r.Target)
		}
	}
}

// edgeWithStem reports an edge to target carrying stem.
func (g *Graph) edgeWithStem(vault, target, stem string) bool {
	for _, e := range g.in[vault][target] {
		if d := g.docs[e.src]; d != nil && e.rel < len(d.rels) && d.rels[e.rel].Stem == stem {
			return true
		}
	}
	return false
}

// factPartners returns the entities related to key by a fact (either
// direction) and the chunks stating those facts.
func (g *Graph) factPartners(vault, key string) (keys []string, chunks []graph.ChunkRef) {
	for _, fr := range g.facts[vault][key] {
		f := g.docs[fr.src].facts[fr.i]
		other := f.Object
		if other == key {
			other = f.Subject
		}
		if !slices.Contains(keys, other) {
			keys = append(keys, other)
		}
		if f.Chunk >= 0 {
			chunks = append(chunks, graph.ChunkRef{Doc: fr.src, Ord: uint32(f.Chunk)})
		}
	}
	return keys, chunks
}

// reachTyped is the graph channel from a typed entity found in a query:
// the chunks that mention it or state a fact about it, and, one hop along
// its facts (decayed), the chunks mentioning the entities it is related to.
func (g *Graph) reachTyped(vault, key string, w float64, add func(graph.ChunkRef, float64)) {
	g.reachMentions(vault, key, w*graphMention, add)
	others, stated := g.factPartners(vault, key)
	for _, ref := range stated {
		add(ref, w*graphMention)
	}
	for _, o := range others {
		g.reachMentions(vault, o, w*graphHopDecay*graphMention, add)
	}
}

func (g *Graph) reachMentions(vault, key string, w float64, add func(graph.ChunkRef, float64)) {
	n := 0
	for _, e := range g.in[vault][key] {
		r := g.docs[e.src].rels[e.rel]
		if r.Type != graph.RelMentions || r.Chunk < 0 {
			continue
		}
		if n++; n > graphMaxPerNode {
			return
		}
		add(graph.ChunkRef{Doc: e.src, Ord: uint32(r.Chunk)}, w)
	}
}

// typedNeighbors returns the keys adjacent to a typed entity: the notes
// mentioning it, the entities related to it by a fact, and the entities
// mentioned in the same chunk.
func (g *Graph) typedNeighbors(vault, key string) []string {
	var out []string
	for _, e := range g.in[vault][key] {
		d := g.docs[e.src]
		r := d.rels[e.rel]
		if r.Type != graph.RelMentions {
			continue
		}
		out = append(out, graph.NameKey(d.path))
		for _, o := range d.rels {
			if o.Type == graph.RelMentions && o.Target != key && o.Chunk == r.Chunk && r.Chunk >= 0 {
				out = append(out, o.Target)
			}
		}
	}
	others, _ := g.factPartners(vault, key)
	return append(out, others...)
}

// typedInfos describes a typed entity, once per type the notes give it:
// its most used name, its aliases and how many notes' mentions point at it
// (aliases not counted).
func (g *Graph) typedInfos(vault, key string) []graph.EntityInfo {
	type agg struct {
		names   map[string]int
		aliases []string
		n       int
	}
	byType := map[string]*agg{}
	for _, e := range g.in[vault][key] {
		r := g.docs[e.src].rels[e.rel]
		if r.Type != graph.RelMentions {
			continue
		}
		a := byType[r.Field]
		if a == nil {
			a = &agg{names: map[string]int{}}
			byType[r.Field] = a
		}
		if r.Alias == "" {
			a.n++
			a.names[r.Raw]++
		} else if !slices.Contains(a.aliases, r.Alias) {
			a.aliases = append(a.aliases, r.Alias)
		}
	}
	var out []graph.EntityInfo
	for typ, a := range byType {
		e := graph.EntityInfo{Vault: vault, Key: key, Type: typ, Incoming: a.n}
		for n, c := range a.names {
			if c > a.names[e.Name] || c == a.names[e.Name] && (e.Name == "" || n < e.Name) {
				e.Name = n
			}
		}
		if e.Name == "" {
			e.Name = key[1:]
		}
		sort.Strings(a.aliases)
		e.Aliases = a.aliases
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Incoming != out[j].Incoming {
			return out[i].Incoming > out[j].Incoming
		}
		return out[i].Type < out[j].Type
	})
	return out
}

// typedStats counts the typed entities and facts and returns the first
// inconsistency of their part of the in-memory graph ("" if none).
func (g *Graph) typedStats() (typed, facts int, problem string) {
	report := func(format string, a ...any) {
		if problem == "" {
			problem = fmt.Sprintf(format, a...)
		}
	}
	refs := 0
	for _, d := range g.docs {
		for _, r := range d.rels {
			if r.Type == graph.RelMentions && (!isTyped(r.Target) || r.Chunk >= d.chunks) {
				report("mention of %s in %s is not a typed entity of one of its chunks", r.Target, d.path)
			}
		}
		for _, f := range d.facts {
			facts++
			refs += 2
			if f.Subject == f.Object {
				refs--
			}
			if len(g.in[d.vault][f.Subject]) == 0 || len(g.in[d.vault][f.Object]) == 0 {
				report("a fact of %s relates an entity nothing mentions", d.path)
			}
		}
	}
	for v, byKey := range g.facts {
		for key, rs := range byKey {
			for _, fr := range rs {
				refs--
				d := g.docs[fr.src]
				if d == nil || d.vault != v || fr.i >= len(d.facts) || d.facts[fr.i].Subject != key && d.facts[fr.i].Object != key {
					report("fact index points at a missing fact of %s", key)
				}
			}
		}
	}
	if refs != 0 {
		report("fact index and facts disagree")
	}
	for _, in := range g.in {
		for target, es := range in {
			if isTyped(target) && slices.ContainsFunc(es, func(e inRef) bool {
				d := g.docs[e.src]
				return d != nil && e.rel < len(d.rels) && d.rels[e.rel].Type == graph.RelMentions
			}) {
				typed++
			}
		}
	}
	for v, stems := range g.stems {
		for stem, ents := range stems {
			for _, ent := range ents {
				if isTyped(ent) && len(g.names[v][ent]) == 0 && !g.edgeWithStem(v, ent, stem) {
					report("stem %q names %s, which nothing mentions", stem, ent)
				}
			}
		}
	}
	return typed, facts, problem
}
