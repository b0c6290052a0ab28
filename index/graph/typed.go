package graph

import (
	"fmt"
	"slices"
	"sort"
)

// Typed entities (enrich.go) in the in-memory graph. An "@" key behaves
// like a tag: it exists while some note mentions it, its names (the model's
// name and aliases) are stems the graph channel finds it by, and it is
// related to other typed entities by the notes' facts.

func (g *Graph) removeFacts(i uint32, n *node) {
	for _, f := range g.factsOf(n) {
		for _, k := range []uint32{f.subject, f.object} {
			g.byFact.removeFunc(pair(n.vault, k), func(r factRef) bool { return r.src == i })
		}
	}
}

// dropMentionStems drops the stems of a removed note's mentions that no
// other mention of the same entity still carries. n is no longer live.
func (g *Graph) dropMentionStems(n *node) {
	for _, r := range g.relsOf(n) {
		if r.typ == symMentions && r.stem != 0 && !g.edgeWithStem(n.vault, r.target, r.stem) {
			g.dropStem(n.vault, r.stem, r.target)
		}
	}
}

// edgeWithStem reports an edge to target carrying stem.
func (g *Graph) edgeWithStem(vault, target, stem uint32) bool {
	for _, e := range g.edges(vault, target) {
		if g.nodes[e.src].live && g.rel(e).stem == stem {
			return true
		}
	}
	return false
}

// factPartners returns the entities related to key by a fact (either
// direction) and the chunks stating those facts.
func (g *Graph) factPartners(vault, key uint32) (keys []uint32, chunks []ChunkRef) {
	for _, fr := range g.byFact.get(pair(vault, key)) {
		n := &g.nodes[fr.src]
		f := &g.facts[n.facts.off+fr.i]
		other := f.object
		if other == key {
			other = f.subject
		}
		if !slices.Contains(keys, other) {
			keys = append(keys, other)
		}
		if f.chunk >= 0 {
			chunks = append(chunks, ChunkRef{n.id, uint32(f.chunk)})
		}
	}
	return keys, chunks
}

// reachTyped is the graph channel from a typed entity found in a query:
// the chunks that mention it or state a fact about it, and, one hop along
// its facts (decayed), the chunks mentioning the entities it is related to.
func (g *Graph) reachTyped(vault, key uint32, w float64, add func(ChunkRef, float64)) {
	g.reachMentions(vault, key, w*graphMention, add)
	others, stated := g.factPartners(vault, key)
	for _, ref := range stated {
		add(ref, w*graphMention)
	}
	for _, o := range others {
		g.reachMentions(vault, o, w*graphHopDecay*graphMention, add)
	}
}

func (g *Graph) reachMentions(vault, key uint32, w float64, add func(ChunkRef, float64)) {
	n := 0
	for _, e := range g.edges(vault, key) {
		r := g.rel(e)
		if r.typ != symMentions || r.chunk < 0 {
			continue
		}
		if n++; n > graphMaxPerNode {
			return
		}
		add(ChunkRef{g.nodes[e.src].id, uint32(r.chunk)}, w)
	}
}

// typedNeighbors returns the keys adjacent to a typed entity: the notes
// mentioning it, the entities related to it by a fact, and the entities
// mentioned in the same chunk.
func (g *Graph) typedNeighbors(vault, key uint32) []uint32 {
	var out []uint32
	for _, e := range g.edges(vault, key) {
		n := &g.nodes[e.src]
		r := g.rel(e)
		if r.typ != symMentions {
			continue
		}
		out = append(out, g.pathSym(n))
		for _, o := range g.relsOf(n) {
			if o.typ == symMentions && o.target != key && o.chunk == r.chunk && r.chunk >= 0 {
				out = append(out, o.target)
			}
		}
	}
	others, _ := g.factPartners(vault, key)
	return append(out, others...)
}

// typedInfos describes a typed entity, once per type the notes give it:
// its most used name, its aliases and how many notes' mentions point at it
// (aliases not counted).
func (g *Graph) typedInfos(vault, key uint32) []EntityInfo {
	type agg struct {
		names   map[string]int
		aliases []string
		n       int
	}
	byType := map[string]*agg{}
	for _, e := range g.edges(vault, key) {
		r := g.rel(e)
		if r.typ != symMentions {
			continue
		}
		field, alias := g.str(g.field(r)), g.str(g.alias(r))
		a := byType[field]
		if a == nil {
			a = &agg{names: map[string]int{}}
			byType[field] = a
		}
		if alias == "" {
			a.n++
			a.names[g.str(r.raw)]++
		} else if !slices.Contains(a.aliases, alias) {
			a.aliases = append(a.aliases, alias)
		}
	}
	var out []EntityInfo
	k := g.str(key)
	for typ, a := range byType {
		e := EntityInfo{Vault: g.str(vault), Key: k, Type: typ, Incoming: a.n}
		for n, c := range a.names {
			if c > a.names[e.Name] || c == a.names[e.Name] && (e.Name == "" || n < e.Name) {
				e.Name = n
			}
		}
		if e.Name == "" {
			e.Name = k[1:]
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
	for i := range g.nodes {
		n := &g.nodes[i]
		if !n.live {
			continue
		}
		for _, r := range g.relsOf(n) {
			if r.typ == symMentions && (!isTyped(g.str(r.target)) || r.chunk >= n.chunks) {
				report("mention of %s in %s is not a typed entity of one of its chunks", g.str(r.target), g.str(n.path))
			}
		}
		for _, f := range g.factsOf(n) {
			facts++
			refs += 2
			if f.subject == f.object {
				refs--
			}
			if g.in.count(pair(n.vault, f.subject)) == 0 || g.in.count(pair(n.vault, f.object)) == 0 {
				report("a fact of %s relates an entity nothing mentions", g.str(n.path))
			}
		}
	}
	for k, s := range g.byFact.idx {
		key := pairKey(k)
		for _, fr := range g.byFact.data[s.off : s.off+s.n] {
			refs--
			if int(fr.src) >= len(g.nodes) {
				report("fact index points at a missing fact of %s", g.str(key))
				continue
			}
			n := &g.nodes[fr.src]
			if !n.live || n.vault != pairVault(k) || fr.i >= n.facts.n ||
				g.facts[n.facts.off+fr.i].subject != key && g.facts[n.facts.off+fr.i].object != key {
				report("fact index points at a missing fact of %s", g.str(key))
			}
		}
	}
	if refs != 0 {
		report("fact index and facts disagree")
	}
	for k := range g.in.idx {
		if !isTyped(g.str(pairKey(k))) {
			continue
		}
		for _, e := range g.in.get(k) {
			if g.nodes[e.src].live && g.rel(e).typ == symMentions {
				typed++
				break
			}
		}
	}
	for k, s := range g.stems.idx {
		stem := pairKey(k)
		for _, ent := range g.stems.data[s.off : s.off+s.n] {
			if isTyped(g.str(ent)) && g.names.count(pair(pairVault(k), ent)) == 0 && !g.edgeWithStem(pairVault(k), ent, stem) {
				report("stem %q names %s, which nothing mentions", g.str(stem), g.str(ent))
			}
		}
	}
	return typed, facts, problem
}

// Check verifies a note's stored record against the note, which has chunks
// chunks: every mention and fact lies in one of them, every mention names
// a typed entity, and every fact relates entities the note mentions.
func (g *Record) Check(chunks int) error {
	mentioned := map[string]bool{}
	for _, r := range g.Relations {
		if r.Chunk < -1 || r.Chunk >= chunks {
			return fmt.Errorf("relation to %s in chunk %d of %d", r.Target, r.Chunk, chunks)
		}
		if r.Type == RelMentions {
			if !isTyped(r.Target) || r.Field == "" {
				return fmt.Errorf("mention of %q has no typed entity", r.Target)
			}
			mentioned[r.Target] = true
		}
	}
	for _, f := range g.Facts {
		if f.Chunk < -1 || f.Chunk >= chunks || !mentioned[f.Subject] || !mentioned[f.Object] {
			return fmt.Errorf("fact %s %s %s is not about entities of its chunks", f.Subject, f.Predicate, f.Object)
		}
	}
	return nil
}
