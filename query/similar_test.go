package query

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/ipc"
)

// fakeSimilar implements SimilarIndex.
type fakeSimilar struct {
	docs      map[[2]string]*index.Document
	docErr    error
	vecs      [][]float32
	vecErr    error
	links     []graph.LinkRef
	backlinks []graph.LinkRef
}

func (f *fakeSimilar) ChunkVectors(string, string) ([][]float32, error) { return f.vecs, f.vecErr }
func (f *fakeSimilar) Backlinks(string, string) ([]graph.LinkRef, error) {
	return f.backlinks, nil
}
func (f *fakeSimilar) Links(string, string) ([]graph.LinkRef, error) { return f.links, nil }
func (f *fakeSimilar) Document(vault, path string) (*index.Document, error) {
	return f.docs[[2]string{vault, path}], f.docErr
}

// similarFixture: the note is v/a.md ("Alpha"). The vector channel finds
// a itself, b (two chunks) and c; the term search finds a itself, c (two
// chunks) and d; a links to b and to itself, and e, c and a link to a.
func similarFixture() (*fakeIndex, *fakeSimilar) {
	f := newFakeIndex()
	b2 := hit(2, "v", "b.md", 0.85)
	b2.Ref.Ord = 1
	c2 := hit(3, "v", "c.md", 2)
	c2.Ref.Ord = 1
	f.vec = []index.Hit{hit(1, "v", "a.md", 0.99), hit(2, "v", "b.md", 0.9), b2, hit(3, "v", "c.md", 0.8)}
	f.lex = []index.Hit{hit(1, "v", "a.md", 5), hit(3, "v", "c.md", 4), hit(4, "v", "d.md", 3), c2}
	six := &fakeSimilar{
		docs: map[[2]string]*index.Document{
			{"v", "a.md"}:      {Vault: "v", Path: "a.md", Title: "Alpha", Status: index.StatusOK},
			{"v", "broken.md"}: {Vault: "v", Path: "broken.md", Status: index.StatusFailed},
		},
		vecs:  [][]float32{{1, 0}, {0, 1}},
		links: []graph.LinkRef{{Vault: "v", Source: "a.md", Resolved: []string{"b.md", "a.md"}}},
		backlinks: []graph.LinkRef{
			{Vault: "v", Source: "e.md"}, {Vault: "v", Source: "c.md"}, {Vault: "v", Source: "a.md"},
		},
	}
	return f, six
}

func notes(ns []SimilarNote) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.Path
	}
	return out
}

func TestSimilarCombinesChannelsAndNeverReturnsItself(t *testing.T) {
	f, six := similarFixture()
	e := NewEngine(f).WithEmbedder(&fakeEmbedder{sig: "sig-s"}, nil)
	got, degraded, err := e.Similar(context.Background(), six, "v", "a.md", 10)
	if err != nil || len(degraded) != 0 {
		t.Fatalf("similar: %v, degraded %v", err, degraded)
	}
	if p := notes(got); !reflect.DeepEqual(p, []string{"c.md", "b.md", "e.md", "d.md"}) {
		t.Fatalf("similar = %v", p)
	}
	why := map[string][]string{}
	score := map[string]float64{}
	for _, n := range got {
		why[n.Path], score[n.Path] = n.Why, n.Score
		if n.Path == "a.md" {
			t.Errorf("the note itself was returned")
		}
	}
	wantWhy := map[string][]string{
		"c.md": {"vector", "terms", "links"},
		"b.md": {"vector", "links"},
		"e.md": {"links"},
		"d.md": {"terms"},
	}
	if !reflect.DeepEqual(why, wantWhy) {
		t.Errorf("why = %v, want %v", why, wantWhy)
	}
	// Reciprocal rank fusion, k=60: vector weight 1, terms 0.5, links 1.
	// c: vector rank 2, terms rank 1, links rank 1 (it is linked and
	// reached by the terms, so it leads the link list).
	if w := 1.0/62 + 0.5/61 + 1.0/61; math.Abs(score["c.md"]-w) > 1e-12 {
		t.Errorf("c score = %v, want %v", score["c.md"], w)
	}
	if w := 0.5 / 62; math.Abs(score["d.md"]-w) > 1e-12 {
		t.Errorf("d score = %v, want %v", score["d.md"], w)
	}
	// b and e are linked but not reached by the terms: link ranks 2 and 3.
	be := []float64{score["b.md"] - 1.0/61, score["e.md"]}
	if !(near(be[0], 1.0/62) && near(be[1], 1.0/63)) && !(near(be[0], 1.0/63) && near(be[1], 1.0/62)) {
		t.Errorf("b and e link scores = %v, want link ranks 2 and 3", be)
	}
	for _, n := range got {
		if n.Path == "c.md" && (n.Best.Score != 0.8 || n.Title != "c") {
			t.Errorf("c best hit = %+v", n.Best)
		}
		if n.Path == "e.md" && n.Title != "e" {
			t.Errorf("e title = %q", n.Title)
		}
	}
	// Every channel excluded the note inside retrieval.
	if f.called(ipc.ChannelVector) != 2 || f.vecSig != "sig-s" {
		t.Errorf("vector searches = %d with sig %q, want one per chunk vector", f.called(ipc.ChannelVector), f.vecSig)
	}
	for _, ch := range []string{ipc.ChannelVector, ipc.ChannelLexical} {
		probeFilter(t, ch, f.filters[ch], map[[2]string]bool{{"v", "a.md"}: false, {"v", "b.md"}: true, {"w", "a.md"}: true})
	}
	if want := e.Terms("Alpha a"); !reflect.DeepEqual(f.terms[ipc.ChannelLexical], want) {
		t.Errorf("term query = %q, want %q", f.terms[ipc.ChannelLexical], want)
	}

	// k bounds the answer.
	got, _, _ = e.Similar(context.Background(), six, "v", "a.md", 2)
	if p := notes(got); !reflect.DeepEqual(p, []string{"c.md", "b.md"}) {
		t.Errorf("k=2 = %v", p)
	}
}

// Notes reached only by links are ranked in map iteration order, so the
// same question can get different scores (and order) each time.
func TestSimilarIsDeterministic(t *testing.T) {
	f, six := similarFixture()
	// Several link-only notes make the difference visible.
	six.backlinks = append(six.backlinks, graph.LinkRef{Vault: "v", Source: "f.md"}, graph.LinkRef{Vault: "v", Source: "g.md"},
		graph.LinkRef{Vault: "v", Source: "h.md"})
	e := NewEngine(f).WithEmbedder(&fakeEmbedder{sig: "s"}, nil)
	first, _, _ := e.Similar(context.Background(), six, "v", "a.md", 10)
	for range 30 {
		again, _, _ := e.Similar(context.Background(), six, "v", "a.md", 10)
		if !reflect.DeepEqual(again, first) {
			t.Errorf("BUG: Similar is not deterministic: link-only notes are ranked in map iteration order "+
				"(similar.go, the loop over linked):\n first %v\n again %v", summary(first), summary(again))
			return
		}
	}
}

func summary(ns []SimilarNote) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = fmt.Sprintf("%s %.6f", n.Path, n.Score)
	}
	return out
}

func TestSimilarDegradedWithoutVectors(t *testing.T) {
	wantWhy := map[string][]string{"c.md": {"terms", "links"}, "d.md": {"terms"}, "b.md": {"links"}, "e.md": {"links"}}
	check := func(name string, e *Engine, six *fakeSimilar, f *fakeIndex) {
		t.Helper()
		got, degraded, err := e.Similar(context.Background(), six, "v", "a.md", 10)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(degraded, []string{ipc.ChannelVector}) {
			t.Errorf("%s: degraded %v, want [vector]", name, degraded)
		}
		why := map[string][]string{}
		for _, n := range got {
			why[n.Path] = n.Why
		}
		if !reflect.DeepEqual(why, wantWhy) {
			t.Errorf("%s: why = %v, want %v", name, why, wantWhy)
		}
	}

	f, six := similarFixture()
	check("no embedder", NewEngine(f), six, f)
	if f.called(ipc.ChannelVector) != 0 {
		t.Error("vector search without an embedder")
	}

	f, six = similarFixture()
	six.vecErr = index.ErrNoVectors
	check("no chunk vectors", NewEngine(f).WithEmbedder(&fakeEmbedder{sig: "s"}, nil), six, f)

	f, six = similarFixture()
	six.vecs = nil
	check("note not embedded yet", NewEngine(f).WithEmbedder(&fakeEmbedder{sig: "s"}, nil), six, f)

	f, six = similarFixture()
	f.vecErr = index.ErrNoVectors
	check("space being built", NewEngine(f).WithEmbedder(&fakeEmbedder{sig: "s"}, nil), six, f)
	if f.called(ipc.ChannelVector) != 1 {
		t.Errorf("vector searches after the first failed = %d, want 1", f.called(ipc.ChannelVector))
	}
}

func TestSimilarBoundsChunksSearched(t *testing.T) {
	f, six := similarFixture()
	six.vecs = make([][]float32, maxSimilarChunks+10)
	for i := range six.vecs {
		six.vecs[i] = []float32{1}
	}
	if _, _, err := NewEngine(f).WithEmbedder(&fakeEmbedder{sig: "s"}, nil).Similar(context.Background(), six, "v", "a.md", 3); err != nil {
		t.Fatal(err)
	}
	if n := f.called(ipc.ChannelVector); n != maxSimilarChunks {
		t.Errorf("%d vector searches, want %d", n, maxSimilarChunks)
	}
	if f.ks[ipc.ChannelVector] != 12 {
		t.Errorf("vector depth %d, want 4k", f.ks[ipc.ChannelVector])
	}
}

func TestSimilarNotIndexed(t *testing.T) {
	f, six := similarFixture()
	e := NewEngine(f)
	for _, p := range []string{"missing.md", "broken.md"} {
		if _, _, err := e.Similar(context.Background(), six, "v", p, 5); !errors.Is(err, ErrNotIndexed) {
			t.Errorf("%s: err = %v, want ErrNotIndexed", p, err)
		}
	}
	six.docErr = errors.New("store closed")
	if _, _, err := e.Similar(context.Background(), six, "v", "a.md", 5); err == nil || errors.Is(err, ErrNotIndexed) {
		t.Errorf("store error = %v", err)
	}
}
