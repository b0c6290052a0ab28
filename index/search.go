package index

import (
	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/segment"
)

// LexicalQuery is a lexical search over notes.
type LexicalQuery struct {
	// Text is the searched text; a "quoted phrase" must occur as written.
	Text string
	// Phrases are phrases of Text (already unquoted) that must occur as
	// written.
	Phrases []string
	// K is how many notes to rank; Keep, when not 0 and smaller, how many
	// of them to return (their passages and names read): the first Keep
	// of the K ranked, as K would rank them.
	K, Keep int
	// Passages is how many matching chunks of a note to return beyond its
	// best one.
	Passages int
	Filter   Filter
	// Params overrides the store's ranking parameters (nil: the store's).
	Params *BM25
}

// NoteHit is a note found by a lexical search.
type NoteHit struct {
	Doc   DocID
	Vault string
	Path  string
	Title string
	// Score is the note's BM25F: its best chunk's, plus the whole note's
	// weighted share.
	Score float64
	// Norm is Score over the score of a note holding every query word at
	// saturation in both parts, in [0, 1]: how much of the query the note
	// matches, comparable across queries.
	Norm float64
	// Matched is how many of the query's Words the best passage or the
	// note's fields hold.
	Matched, Words int
	// Passages are the note's matching chunks, best first: the first is
	// the one to cite.
	Passages []Hit
}

// QueryWord is one word of an analysed query.
type QueryWord struct {
	analyze.QueryTerm
	Phrase int // 1-based number of the quoted phrase it belongs to, 0 none
}

// QueryWords analyses a query in every language the store's notes use,
// marking the words of quoted phrases, in text or given (already unquoted)
// as phrases.
func (s *Store) QueryWords(text string, phrases ...string) []QueryWord {
	var langs []analyze.Lang
	s.wmu.Lock()
	mask := s.stats.Langs
	s.wmu.Unlock()
	for _, l := range analyze.Langs() {
		if mask&(1<<l) != 0 {
			langs = append(langs, l)
		}
	}
	spans := quoted(text)
	qs := s.an.Query(text, langs...)
	out := make([]QueryWord, len(qs))
	for i, q := range qs {
		out[i].QueryTerm = q
		for k, sp := range spans {
			if q.Start >= sp[0] && q.End <= sp[1] {
				out[i].Phrase = k + 1
			}
		}
	}
	// Given phrases: their words where they stand in the query, in order.
	for k, ph := range phrases {
		pw := s.an.Query(ph, langs...)
		if len(pw) == 0 {
			continue
		}
		for i := 0; i+len(pw) <= len(out); i++ {
			match := true
			for j := range pw {
				if out[i+j].Variants[0] != pw[j].Variants[0] || pw[j].Pos-pw[0].Pos != out[i+j].Pos-out[i].Pos {
					match = false
					break
				}
			}
			if match {
				for j := range pw {
					out[i+j].Phrase = len(spans) + k + 1
				}
				break
			}
		}
	}
	return out
}

// quoted returns the byte ranges inside balanced double quotes ("…" or
// “…”).
func quoted(text string) [][2]int {
	var out [][2]int
	open := -1
	for i, r := range text {
		if r != '"' && r != '“' && r != '”' {
			continue
		}
		if open < 0 {
			open = i + len(string(r))
		} else {
			out = append(out, [2]int{open, i})
			open = -1
		}
	}
	return out
}

// Aliases returns the aliases of each of docs (nil for a note with none
// or no longer searchable), read from the lexical index: for the
// reranker's candidates, without reading Badger.
func (s *Store) Aliases(docs []DocID) [][]string {
	out := make([][]string, len(docs))
	if s.closed.Load() {
		return out
	}
	v := s.view()
	defer v.Release()
	for i, d := range docs {
		if r, ok := v.Find(uint64(d)); ok {
			out[i] = v.Aliases(r)
		}
	}
	return out
}

// SearchNotes ranks the notes for q (segment.View.Search) and describes
// the best q.K with their passages. It fails only on a closed store.
func (s *Store) SearchNotes(q LexicalQuery) ([]NoteHit, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	words := s.QueryWords(q.Text, q.Phrases...)
	if q.K <= 0 || len(words) == 0 {
		return nil, nil
	}
	groups := make([]segment.Group, len(words))
	for i, w := range words {
		groups[i] = segment.Group{Terms: w.Variants, Pos: w.Pos, Phrase: w.Phrase}
	}
	p := s.params
	if q.Params != nil {
		p = *q.Params
	}
	v := s.view()
	defer v.Release()
	sq := segment.Query{Groups: groups, K: q.K, Keep: q.Keep, Passages: q.Passages, Resolve: s.resolveAnchor, ResolveGen: s.resolveGen()}
	if q.Filter != nil {
		sq.Filter = q.Filter
	}
	hits := v.Search(sq, p)
	out := make([]NoteHit, 0, len(hits))
	for _, h := range hits {
		vault, path, title := v.Names(h.Ref)
		nh := NoteHit{Doc: DocID(h.ID), Vault: vault, Path: path, Title: title,
			Score: h.Score, Matched: h.Matched, Words: len(groups), Passages: make([]Hit, 0, 1+len(h.More))}
		if h.Max > 0 {
			nh.Norm = min(1, h.Score/(h.Max*(1+p.NoteBM25)))
		}
		for i := -1; i < len(h.More); i++ {
			c := h.Best
			if i >= 0 {
				c = h.More[i]
			}
			nh.Passages = append(nh.Passages, Hit{Ref: ChunkRef{nh.Doc, c.Ord}, Vault: nh.Vault, Path: nh.Path,
				Title: nh.Title, Heading: v.Heading(h.Ref, c.Parent), LineStart: int(c.LineStart),
				LineEnd: int(c.LineEnd), Score: c.Score, Parent: c.Parent})
		}
		out = append(out, nh)
	}
	return out, nil
}

// Search returns the best passage of each of the k best notes for already
// analysed terms (one query word each), best first.
func (s *Store) Search(terms []string, k int, filter Filter) []Hit {
	if k <= 0 || len(terms) == 0 {
		return nil
	}
	groups := make([]segment.Group, len(terms))
	for i, t := range terms {
		groups[i] = segment.Group{Terms: []string{t}, Pos: i}
	}
	v := s.view()
	defer v.Release()
	sq := segment.Query{Groups: groups, K: k, Resolve: s.resolveAnchor, ResolveGen: s.resolveGen(), Filter: filter}
	var out []Hit
	for _, h := range v.Search(sq, s.params) {
		if hit, ok := hitAt(v, h.Ref, h.Best.Ord, h.Score); ok {
			out = append(out, hit)
		}
	}
	return out
}
