package query

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/ipc"
)

// fakeIndex implements Index over fixed channel lists. Every channel
// honours the filter it is given, as the store does: it returns the first
// k hits of its list that the filter admits. It records each call.
type fakeIndex struct {
	an *analyze.Analyzer

	lex, vec, graph []index.Hit
	vecErr          error

	gone    map[index.ChunkRef]bool // chunks that vanished since ranking
	pages   map[index.ChunkRef]int
	parents map[[2]uint64]index.Parent // {doc, parent ord}

	// meta describes documents for MetaFilter.
	meta     map[[2]string]docMeta
	embedded map[[2]string]bool
	// docs are the stored documents (Document).
	docs map[[2]string]*index.Document
	// aliases are the documents' aliases (Aliases), by id.
	aliases map[index.DocID][]string
	// stats are the vector statistics (VectorStats, for calibration).
	stats index.VectorStats

	mu        sync.Mutex
	calls     map[string]int
	filters   map[string]index.Filter
	terms     map[string][]string
	ks        map[string]int
	vecSig    string
	vecQ      []float32
	metaTags  []string
	metaAfter time.Time
	metaBef   time.Time
	chunkRefs []index.ChunkRef
}

type docMeta struct {
	tags  []string
	mtime time.Time
}

func newFakeIndex() *fakeIndex {
	return &fakeIndex{an: analyze.New(), calls: map[string]int{}, filters: map[string]index.Filter{},
		terms: map[string][]string{}, ks: map[string]int{}}
}

func (f *fakeIndex) record(ch string, terms []string, k int, filter index.Filter) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[ch]++
	f.filters[ch] = filter
	f.terms[ch] = terms
	f.ks[ch] = k
}

func (f *fakeIndex) called(ch string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[ch]
}

func take(list []index.Hit, k int, filter index.Filter) []index.Hit {
	var out []index.Hit
	for _, h := range list {
		if len(out) == k {
			break
		}
		if filter == nil || filter(h.Vault, h.Path) {
			out = append(out, h)
		}
	}
	return out
}

func (f *fakeIndex) Analyzer() *analyze.Analyzer { return f.an }

func (f *fakeIndex) Search(terms []string, k int, filter index.Filter) []index.Hit {
	f.record(ipc.ChannelLexical, terms, k, filter)
	return take(f.lex, k, filter)
}

// SearchNotes groups the lexical list by note: a note's passages are its
// hits in list order, its score its first hit's, its norm that score over
// the list's best.
func (f *fakeIndex) SearchNotes(q index.LexicalQuery) ([]index.NoteHit, error) {
	f.record(ipc.ChannelLexical, f.an.AppendTerms(nil, q.Text), q.K, q.Filter)
	var out []index.NoteHit
	at := map[index.DocID]int{}
	top := 0.0
	for _, h := range f.lex {
		if q.Filter != nil && !q.Filter(h.Vault, h.Path) {
			continue
		}
		i, ok := at[h.Ref.Doc]
		if !ok {
			if len(out) == q.K {
				continue
			}
			i = len(out)
			at[h.Ref.Doc] = i
			out = append(out, index.NoteHit{Doc: h.Ref.Doc, Vault: h.Vault, Path: h.Path, Title: h.Title, Score: h.Score})
			top = max(top, h.Score)
		}
		out[i].Passages = append(out[i].Passages, h)
	}
	for i := range out {
		if top > 0 {
			out[i].Norm = out[i].Score / top
		}
	}
	return out, nil
}

func (f *fakeIndex) QueryWords(text string, phrases ...string) []index.QueryWord {
	var out []index.QueryWord
	for _, q := range f.an.Query(text) {
		out = append(out, index.QueryWord{QueryTerm: q})
	}
	return out
}

func (f *fakeIndex) LinkSearch(terms []string, embeds bool, k int, filter index.Filter) ([]index.Hit, []index.DocID) {
	f.record("links", terms, k, filter)
	return nil, nil
}

func (f *fakeIndex) GraphSearch(terms []string, k int, filter index.Filter) ([]index.Hit, []graph.Match) {
	f.record(ipc.ChannelGraph, terms, k, filter)
	return take(f.graph, k, filter), nil
}

func (f *fakeIndex) VectorSearch(sig string, q []float32, k int, filter index.Filter) ([]index.Hit, error) {
	f.record(ipc.ChannelVector, nil, k, filter)
	f.mu.Lock()
	f.vecSig, f.vecQ = sig, q
	f.mu.Unlock()
	if f.vecErr != nil {
		return nil, f.vecErr
	}
	return take(f.vec, k, filter), nil
}

// VectorSearchExact answers as VectorSearch does: the fake's vector list
// is already exact.
func (f *fakeIndex) VectorSearchExact(sig string, q []float32, k int, filter index.Filter) ([]index.Hit, error) {
	return f.VectorSearch(sig, q, k, filter)
}

func (f *fakeIndex) Embedded(inScope index.Filter) map[[2]string]bool {
	f.record("embedded", nil, 0, inScope)
	out := map[[2]string]bool{}
	for k := range f.embedded {
		out[k] = true
	}
	return out
}

func (f *fakeIndex) MetaFilter(tags []string, after, before time.Time) index.Filter {
	f.mu.Lock()
	f.calls["meta"]++
	f.metaTags, f.metaAfter, f.metaBef = tags, after, before
	f.mu.Unlock()
	if len(tags) == 0 && after.IsZero() && before.IsZero() {
		return nil
	}
	return func(vault, path string) bool {
		m, ok := f.meta[[2]string{vault, path}]
		if !ok {
			return false
		}
		for _, t := range tags {
			if !slices.Contains(m.tags, t) {
				return false
			}
		}
		return (after.IsZero() || !m.mtime.Before(after)) && (before.IsZero() || m.mtime.Before(before))
	}
}

func (f *fakeIndex) Chunks(refs []index.ChunkRef) ([]index.Chunk, error) {
	f.mu.Lock()
	f.calls["chunks"]++
	f.chunkRefs = append(f.chunkRefs, refs...)
	f.mu.Unlock()
	out := make([]index.Chunk, len(refs))
	for i, r := range refs {
		if f.gone[r] {
			continue
		}
		out[i] = index.Chunk{Ref: r, Text: "text of " + r.String(), Page: f.pages[r]}
	}
	return out, nil
}

func (f *fakeIndex) Aliases(docs []index.DocID) [][]string {
	out := make([][]string, len(docs))
	for i, d := range docs {
		out[i] = f.aliases[d]
	}
	return out
}

func (f *fakeIndex) Cite(chunks, parents []index.ChunkRef, files []index.FileRef) (index.Cited, error) {
	var cs []index.Chunk
	if len(chunks) > 0 { // a read of text, counted as Chunks counts it
		cs, _ = f.Chunks(chunks)
	}
	c := index.Cited{Chunks: cs, Parents: make([]index.Parent, len(parents)), ParentOK: make([]bool, len(parents)),
		Stats: make([]index.StoredStat, len(files)), StatOK: make([]bool, len(files))}
	for i, r := range parents {
		c.Parents[i], c.ParentOK[i] = f.parents[[2]uint64{uint64(r.Doc), uint64(r.Ord)}]
	}
	return c, nil
}

func (f *fakeIndex) Document(vault, path string) (*index.Document, error) {
	return f.docs[[2]string{vault, path}], nil
}

func (f *fakeIndex) VectorStats() index.VectorStats { return f.stats }

// hit makes a hit on chunk 0 of document doc.
func hit(doc uint64, vault, path string, score float64) index.Hit {
	return index.Hit{Ref: index.ChunkRef{Doc: index.DocID(doc)}, Vault: vault, Path: path, Title: strings.TrimSuffix(path, ".md"),
		LineStart: int(doc), LineEnd: int(doc) + 2, Score: score, Heading: []string{"H" + path}}
}

func refOf(doc uint64) index.ChunkRef { return index.ChunkRef{Doc: index.DocID(doc)} }

// fakeEmbedder returns a fixed query vector or error.
type fakeEmbedder struct {
	sig string
	vec []float32
	err error

	mu    sync.Mutex
	texts []string
}

func (e *fakeEmbedder) Signature() string { return e.sig }

func (e *fakeEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	e.mu.Lock()
	e.texts = append(e.texts, text)
	e.mu.Unlock()
	return e.vec, e.err
}

func (e *fakeEmbedder) calls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.texts)
}

// fakeReranker scores candidates by path (missing paths score 0).
type fakeReranker struct {
	scores map[string]float64
	err    error
	short  bool // return one score too few

	query string
	got   []Candidate
}

func (r *fakeReranker) Rerank(_ context.Context, query string, cands []Candidate) ([]float64, error) {
	r.query, r.got = query, cands
	if r.err != nil {
		return nil, r.err
	}
	out := make([]float64, len(cands))
	for i, c := range cands {
		out[i] = r.scores[c.Path]
	}
	if r.short {
		out = out[1:]
	}
	return out, nil
}

// opts are hybrid options with every channel on at weight 1.
// opts turns every channel on, with a vector floor below every test
// similarity (an uncalibrated vector channel grounds nothing alone).
func opts() Options {
	o := DefaultOptions
	o.Weights = map[string]float64{ipc.ChannelLexical: 1, ipc.ChannelVector: 1, ipc.ChannelGraph: 1}
	o.MinSimilarity = 0.01
	return o
}

func paths(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Path
	}
	return out
}

func mustSearch(t *testing.T, e *Engine, req Request) *Response {
	t.Helper()
	resp, err := e.Search(context.Background(), req)
	if err != nil {
		t.Fatalf("Search(%+v): %v", req, err)
	}
	return resp
}

// threeChannels is an index where each channel finds something.
func threeChannels() *fakeIndex {
	f := newFakeIndex()
	f.lex = []index.Hit{hit(1, "notes", "a.md", 9), hit(2, "notes", "b.md", 5)}
	f.vec = []index.Hit{hit(3, "notes", "c.md", 0.9), hit(1, "notes", "a.md", 0.5)}
	f.graph = []index.Hit{hit(4, "notes", "d.md", 2)}
	return f
}
