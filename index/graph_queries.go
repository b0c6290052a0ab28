package index

import (
	"sort"

	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/segment"
)

// The entity graph (index/graph) lives beside the postings in memIndex and
// under its lock: a write replaces a note's postings and its part of the
// graph together, so no query sees them disagree. These methods take the
// lock and ask the graph.

// Backlinks lists the relations of other notes (and the note itself) that
// point at the named note, through any of its names.
func (s *Store) Backlinks(vault, note string) ([]graph.LinkRef, error) {
	s.mem.rlockGraph()
	defer s.mem.mu.RUnlock()
	return s.mem.graph.Backlinks(vault, note)
}

// FindNotes resolves a note's name — its path, file name, alias or title,
// in any case — to the notes it names, in any vault unless vault is set.
// It returns *graph.ErrNoSuchNote when none has that name.
func (s *Store) FindNotes(vault, name string) ([]graph.NoteRef, error) {
	s.mem.rlockGraph()
	defer s.mem.mu.RUnlock()
	return s.mem.graph.FindNotes(vault, name)
}

// Links lists the relations held by the named note.
func (s *Store) Links(vault, note string) ([]graph.LinkRef, error) {
	s.mem.rlockGraph()
	defer s.mem.mu.RUnlock()
	return s.mem.graph.Links(vault, note)
}

// Unresolved lists links to notes that do not exist (attachments, tags and
// typed entities excluded), in vault ("" for all).
func (s *Store) Unresolved(vault string) []graph.LinkRef {
	s.mem.rlockGraph()
	defer s.mem.mu.RUnlock()
	return s.mem.graph.Unresolved(vault)
}

// Entities lists notes, tags and typed entities in vault ("" for all), most
// referenced first; typ filters by type ("" for all, see graph.Entities).
func (s *Store) Entities(vault, typ string) []graph.EntityInfo {
	s.mem.rlockGraph()
	defer s.mem.mu.RUnlock()
	return s.mem.graph.Entities(vault, typ)
}

// Neighbors walks up to hops links (either direction) from an entity: a
// note, a "#tag" or an "@entity".
func (s *Store) Neighbors(vault, entity string, hops int) ([]graph.EntityInfo, error) {
	s.mem.rlockGraph()
	defer s.mem.mu.RUnlock()
	return s.mem.graph.Neighbors(vault, entity, hops)
}

// Embedded returns the notes that notes matching inScope embed (one
// level), so that text transcluded with ![[Note#Section]] is found when a
// search is scoped to the note that shows it; the result still cites the
// file that holds the text.
func (s *Store) Embedded(inScope Filter) map[[2]string]bool {
	s.mem.rlockGraph()
	defer s.mem.mu.RUnlock()
	return s.mem.graph.Embedded(inScope)
}

// GraphStats returns the graph's sizes, kept as notes are written so that
// this costs O(1), and the inconsistency the last CheckGraph found ("" if
// none, or before the first check).
func (s *Store) GraphStats() graph.Stats {
	s.mem.wantGraph()
	st := *s.mem.graphStats.Load()
	if p := s.graphProblem.Load(); p != nil {
		st.Problem = *p
	}
	return st
}

// CheckGraph walks the whole graph (graph.Graph.Check), checks that it holds
// exactly the searchable notes, and returns its sizes counted again with the
// first inconsistency found; GraphStats reports that inconsistency until
// the next check. It costs a walk of every relation and note: run it when
// the index is quiet, not per request.
func (s *Store) CheckGraph() graph.Stats {
	m := s.mem
	v := s.view()
	defer v.Release()
	m.rlockGraph()
	st := m.graph.Check()
	if st.Problem == "" {
		v.EachNote(func(_ segment.Ref, id uint64, _, path string) bool {
			if !m.graph.Has(graph.DocID(id)) {
				st.Problem = "searchable note " + path + " has no graph record"
			}
			return st.Problem == ""
		})
	}
	if st.Problem == "" && int64(m.graph.Len()) != v.Stats().Notes {
		st.Problem = "graph holds notes that are not searchable"
	}
	m.mu.RUnlock()
	s.graphProblem.Store(&st.Problem)
	return st
}

// GraphSearch is the graph retrieval channel (graph.Graph.Search): the k
// best chunks in scope that the entities named in the analysed query terms
// reach, and those entities.
func (s *Store) GraphSearch(terms []string, k int, filter Filter) ([]Hit, []graph.Match) {
	m := s.mem
	m.rlockGraph()
	defer m.mu.RUnlock()
	if k <= 0 || len(terms) == 0 {
		return nil, nil
	}
	scores, matches := m.graph.Search(terms)
	if len(matches) == 0 {
		return nil, nil
	}
	return s.topHits(scores, k, filter), matches
}

// topHits turns the graph's chunk scores into the k best hits in scope,
// best first (ties by chunk).
func (s *Store) topHits(scores map[graph.ChunkRef]float64, k int, filter Filter) []Hit {
	v := s.view()
	defer v.Release()
	hits := make([]Hit, 0, len(scores))
	for ref, sc := range scores {
		r, ok := v.Find(uint64(ref.Doc))
		if !ok {
			continue
		}
		h, ok := hitAt(v, r, ref.Ord, sc)
		if !ok || filter != nil && !filter(h.Vault, h.Path) {
			continue
		}
		hits = append(hits, h)
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Ref.less(hits[j].Ref)
	})
	if len(hits) > k {
		hits = hits[:k]
	}
	return hits
}

// LinkSearch is the graph side of a relationship question (graph.Graph.
// Linkers): the k best chunks in scope that link to (or embed) the notes
// named in the analysed query terms, and the named notes themselves.
func (s *Store) LinkSearch(terms []string, embeds bool, k int, filter Filter) ([]Hit, []DocID) {
	m := s.mem
	m.rlockGraph()
	scores, _, subjects := m.graph.Linkers(terms, embeds)
	m.mu.RUnlock()
	if len(scores) == 0 || k <= 0 {
		return nil, nil
	}
	hits := s.topHits(scores, k, filter)
	out := make([]DocID, len(subjects))
	for i, id := range subjects {
		out[i] = DocID(id)
	}
	return hits, out
}
