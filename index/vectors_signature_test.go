package index_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
)

func TestVectorsSignatureChangeSwapsWhenComplete(t *testing.T) {
	dir := t.TempDir()
	s := builtStore(t, dir)
	defer func() { s.Close() }()
	if err := s.SaveVectorSnapshots(); err != nil {
		t.Fatal(err)
	}
	snapA := s.SnapshotPath(index.SpaceID(sigA))
	if _, err := os.Stat(snapA); err != nil {
		t.Fatalf("snapshot of A: %v", err)
	}
	wantA := probe(t, s, sigA)

	if err := s.UseEmbedder(sigB, 4); err != nil {
		t.Fatal(err)
	}
	st := s.VectorStats()
	if st.Active != sigA || st.Building != sigB || st.Built != 0 || st.Pending != 7 || st.Vectors != 7 {
		t.Fatalf("stats after the signature change = %+v", st)
	}
	sig, pend, _ := pendingTexts(t, s)
	live, _ := liveTexts(t, s)
	if sig != sigB || !reflect.DeepEqual(pend, live) {
		t.Fatalf("pending = %q %v, want every text for %q", sig, pend, sigB)
	}

	// Half built: A serves, B does not yet.
	if n, swapped := embedPending(t, s, 3, embedB(t)); n != 3 || swapped {
		t.Fatalf("partial B: %d, swapped %v", n, swapped)
	}
	if got := probe(t, s, sigA); !reflect.DeepEqual(got, wantA) {
		t.Errorf("A changed while B was being built:\n got %+v\nwant %+v", got, wantA)
	}
	if _, err := s.VectorSearch(sigB, qGarden, 3, nil); !errors.Is(err, index.ErrNoVectors) {
		t.Errorf("half-built B answered: %v", err)
	}
	if st := s.VectorStats(); st.Active != sigA || st.Building != sigB || st.Built != 3 || st.Pending != 4 {
		t.Errorf("stats half way = %+v", st)
	}
	if n := len(mustStored(t, s, sigA)); n != 7 {
		t.Errorf("A has %d stored vectors while B is built, want 7", n)
	}

	// The last vector swaps.
	if _, swapped := embedPending(t, s, -1, embedB(t)); !swapped {
		t.Fatal("the put completing B did not swap")
	}
	hs := vsearch(t, s, sigB, qGarden, 1, nil)
	if len(hs) != 1 || hs[0].Path != "backup.md" || hitText(t, s, hs[0]) != tRestic {
		t.Errorf("B's nearest to %v = %+v, want the restic chunk (B permutes A)", qGarden, hs)
	}
	if _, err := s.VectorSearch(sigA, qGarden, 3, nil); !errors.Is(err, index.ErrNoVectors) {
		t.Errorf("A still answers after the swap: %v", err)
	}
	st = s.VectorStats()
	if st.Active != sigB || st.Building != "" || st.Vectors != 7 || st.Pending != 0 || !strings.Contains(st.Note, "re-embedded") {
		t.Errorf("stats after the swap = %+v", st)
	}
	if s.ActiveSignature() != sigB {
		t.Errorf("active signature = %q", s.ActiveSignature())
	}
	if n := len(mustStored(t, s, sigA)); n != 0 {
		t.Errorf("A's v/ keys not deleted: %d remain", n)
	}
	if _, err := os.Stat(snapA); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("A's snapshot not deleted: %v", err)
	}
	if sig, _, n := s.PendingVectors(10); sig != sigB || n != 0 {
		t.Errorf("pending after the swap = %q %d", sig, n)
	}

	// Never mixed: a vector computed for A after the swap is dropped.
	wantB := probe(t, s, sigB)
	if swapped, err := s.PutVectors(sigA, []uint64{textHash(tTomato)}, [][]float32{{0, 0, 0, 1}}); err != nil || swapped {
		t.Errorf("late put for A: swapped %v, %v", swapped, err)
	}
	if n := len(mustStored(t, s, sigA)); n != 0 {
		t.Errorf("late put for A was stored (%d keys)", n)
	}
	if got := probe(t, s, sigB); !reflect.DeepEqual(got, wantB) {
		t.Errorf("B changed by a put for A:\n got %+v\nwant %+v", got, wantB)
	}

	// The swap is durable.
	s.Close()
	s = indextest.Open(t, dir)
	if err := s.UseEmbedder(sigB, 4); err != nil {
		t.Fatal(err)
	}
	if got := probe(t, s, sigB); !reflect.DeepEqual(got, wantB) {
		t.Errorf("B after reopen:\n got %+v\nwant %+v", got, wantB)
	}
	if st := s.VectorStats(); st.Active != sigB || st.Building != "" || st.Pending != 0 {
		t.Errorf("stats after reopen = %+v", st)
	}
}

func mustStored(t testing.TB, s *index.Store, sig string) []uint64 {
	t.Helper()
	hs, err := s.StoredHashes(index.SpaceID(sig))
	if err != nil {
		t.Fatal(err)
	}
	return hs
}

func TestVectorsBuildResumesAfterRestart(t *testing.T) {
	dir := t.TempDir()
	s := builtStore(t, dir)
	wantA := probe(t, s, sigA)
	if err := s.UseEmbedder(sigB, 4); err != nil {
		t.Fatal(err)
	}
	embedPending(t, s, 2, embedB(t))
	s.Close()

	s = indextest.Open(t, dir)
	defer s.Close()
	if err := s.UseEmbedder(sigB, 4); err != nil {
		t.Fatal(err)
	}
	// A keeps serving (its dimensions learned from the stored vectors), B
	// resumes where it stopped.
	if got := probe(t, s, sigA); !reflect.DeepEqual(got, wantA) {
		t.Errorf("A after restart:\n got %+v\nwant %+v", got, wantA)
	}
	if st := s.VectorStats(); st.Active != sigA || st.Building != sigB || st.Built != 2 || st.Pending != 5 {
		t.Fatalf("stats after restart = %+v", st)
	}
	if sig, _, n := s.PendingVectors(0); sig != sigB || n != 5 {
		t.Fatalf("pending after restart = %q %d", sig, n)
	}
	if _, swapped := embedPending(t, s, -1, embedB(t)); !swapped {
		t.Fatal("finishing B did not swap")
	}
	if hs := vsearch(t, s, sigB, qGarden, 1, nil); hitText(t, s, hs[0]) != tRestic {
		t.Errorf("B's nearest = %q", hitText(t, s, hs[0]))
	}
}

func TestVectorsAbandonedBuildIsDropped(t *testing.T) {
	s := builtStore(t, t.TempDir())
	defer s.Close()
	wantA := probe(t, s, sigA)
	if err := s.UseEmbedder(sigB, 4); err != nil {
		t.Fatal(err)
	}
	embedPending(t, s, 2, embedB(t))
	// The configuration goes back to A before B is complete.
	if err := s.UseEmbedder(sigA, 4); err != nil {
		t.Fatal(err)
	}
	if st := s.VectorStats(); st.Active != sigA || st.Building != "" || st.Pending != 0 {
		t.Errorf("stats = %+v", st)
	}
	if n := len(mustStored(t, s, sigB)); n != 0 {
		t.Errorf("half-built B keeps %d stored vectors", n)
	}
	if got := probe(t, s, sigA); !reflect.DeepEqual(got, wantA) {
		t.Errorf("A changed")
	}
	if swapped, err := s.PutVectors(sigB, []uint64{textHash(tTomato)}, [][]float32{{1, 0, 0, 0}}); err != nil || swapped {
		t.Errorf("late put for B: %v %v", swapped, err)
	}
	if n := len(mustStored(t, s, sigB)); n != 0 {
		t.Errorf("late put for dropped B was stored")
	}
}

// When the chunks B still lacks vanish (their note is deleted), B is
// complete without another put; it must still take over.
func TestVectorsSwapWhenDeletesCompleteTheBuild(t *testing.T) {
	vault := t.TempDir()
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	syncV(t, s, vault, vecCorpus)
	if err := s.UseEmbedder(sigA, 4); err != nil {
		t.Fatal(err)
	}
	embedPending(t, s, -1, embedA(t))
	if err := s.UseEmbedder(sigB, 4); err != nil {
		t.Fatal(err)
	}
	// Embed everything for B except the Lisbon note's only chunk.
	sig, pend, _ := pendingTexts(t, s)
	var hashes []uint64
	var vecs [][]float32
	for h, text := range pend {
		if text != tTram {
			hashes = append(hashes, h)
			vecs = append(vecs, embedB(t)(text))
		}
	}
	if swapped, err := s.PutVectors(sig, hashes, vecs); err != nil || swapped {
		t.Fatalf("put = %v %v", swapped, err)
	}
	rest := map[string]string{}
	for k, v := range vecCorpus {
		if k != "travel/lisbon.md" {
			rest[k] = v
		}
	}
	os.Remove(filepath.Join(vault, "travel", "lisbon.md"))
	syncV(t, s, vault, rest)
	if _, _, n := s.PendingVectors(0); n != 0 {
		t.Fatalf("pending = %d after deleting the last note B lacked", n)
	}
	if _, err := s.VectorSearch(sigB, qGarden, 1, nil); err != nil {
		st := s.VectorStats()
		t.Errorf("BUG: B has a vector for every live chunk and nothing is pending, yet it never becomes active "+
			"(VectorSearch(sigB): %v; stats %+v): the swap is only checked in PutVectors, which is never called again", err, st)
	}
}
