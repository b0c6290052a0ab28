package index_test

import (
	"io"
	"maps"
	"testing"

	"github.com/ragd/ragd/index"
)

// gate blocks whoever passes it until it is opened, after telling that it
// was reached.
type gate struct{ reached, open chan struct{} }

func newGate() *gate { return &gate{make(chan struct{}), make(chan struct{})} }

func (g *gate) pass() {
	close(g.reached)
	<-g.open
}

// gateWriter passes its gate on the first write.
type gateWriter struct {
	w    io.Writer
	g    *gate
	done bool
}

func (w *gateWriter) Write(p []byte) (int, error) {
	if !w.done {
		w.done = true
		w.g.pass()
	}
	return w.w.Write(p)
}

// searchAll runs every kind of search a query may make and checks each
// answers.
func searchAll(t *testing.T, s *index.Store) {
	t.Helper()
	if hs := vsearch(t, s, sigA, qGarden, 3, nil); len(hs) != 3 {
		t.Errorf("vector search found %d", len(hs))
	}
	if got := s.Search(s.Analyzer().AppendTerms(nil, "restic snapshots"), 3, nil); len(got) == 0 {
		t.Error("BM25 found nothing")
	}
	if st := s.VectorStats(); st.Active != sigA {
		t.Errorf("vector stats = %+v", st)
	}
	if _, _, n := s.PendingVectors(10); n < 0 {
		t.Errorf("pending = %d", n)
	}
}

// A snapshot being written to disk holds off other vector writers, not
// searches.
func TestSearchWhileSnapshotWriteIsBlocked(t *testing.T) {
	s := builtStore(t, t.TempDir())
	defer s.Close()
	g := newGate()
	defer index.SetSnapshotWriteHook(func(w io.Writer) io.Writer { return &gateWriter{w: w, g: g} })()
	saved := make(chan error, 1)
	go func() { saved <- s.SaveVectorSnapshots() }()
	<-g.reached // the index is being saved
	searchAll(t, s)
	close(g.open)
	if err := <-saved; err != nil {
		t.Fatal(err)
	}
}

// Vectors being committed to Badger hold off other vector writers, not
// searches.
func TestSearchWhileVectorCommitIsBlocked(t *testing.T) {
	s := builtStore(t, t.TempDir())
	defer s.Close()
	files := maps.Clone(vecCorpus)
	files["slugs.md"] = "# Slugs\n\n" + tSlugs + "\n"
	syncV(t, s, t.TempDir(), files)
	g := newGate()
	defer index.SetVectorCommitHook(g.pass)()
	put := make(chan error, 1)
	go func() {
		_, err := s.PutVectors(sigA, []uint64{textHash(tSlugs)}, [][]float32{textVecA[tSlugs]})
		put <- err
	}()
	<-g.reached
	searchAll(t, s)
	close(g.open)
	if err := <-put; err != nil {
		t.Fatal(err)
	}
	if _, _, n := s.PendingVectors(10); n != 0 {
		t.Errorf("%d pending after the last vector", n)
	}
}
