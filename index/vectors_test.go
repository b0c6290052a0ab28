package index_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
)

func TestVectorsPendingPutAndSearch(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	syncV(t, s, t.TempDir(), vecCorpus)

	// No embedder yet: nothing to fill, nothing to search.
	if sig, p, n := s.PendingVectors(10); sig != "" || len(p) != 0 || n != 0 {
		t.Fatalf("pending without an embedder = %q %v %d", sig, p, n)
	}
	if _, err := s.VectorSearch(sigA, qGarden, 3, nil); !errors.Is(err, index.ErrNoVectors) {
		t.Fatalf("search without an embedder: %v, want ErrNoVectors", err)
	}

	if err := s.UseEmbedder(sigA, 4); err != nil {
		t.Fatal(err)
	}
	live, nChunks := liveTexts(t, s)
	if nChunks != 8 || len(live) != 7 {
		t.Fatalf("corpus has %d chunks, %d distinct texts; want 8 and 7", nChunks, len(live))
	}
	sig, pend, total := pendingTexts(t, s)
	if sig != sigA || total != 7 || !reflect.DeepEqual(pend, live) {
		t.Fatalf("pending = %v, %d, %v; want every distinct live text once: %v", sig, total, pend, live)
	}
	if _, p, n := s.PendingVectors(3); len(p) != 3 || n != 7 {
		t.Fatalf("PendingVectors(3) = %d chunks of %d, want 3 of 7", len(p), n)
	}

	// Bad input stores nothing.
	if _, err := s.PutVectors(sigA, []uint64{textHash(tTomato)}, nil); err == nil {
		t.Error("PutVectors with 1 hash and 0 vectors succeeded")
	}
	if _, err := s.PutVectors(sigA, []uint64{textHash(tTomato)}, [][]float32{{1, 2, 3}}); err == nil {
		t.Error("PutVectors with a 3-dimensional vector in a 4-dimensional space succeeded")
	}
	if st := s.VectorStats(); st.Vectors != 0 || st.Pending != 7 {
		t.Fatalf("after rejected puts: %+v", st)
	}
	// A vector of a space that is neither active nor being built is dropped.
	if swapped, err := s.PutVectors(sigB, []uint64{textHash(tTomato)}, [][]float32{{1, 0, 0, 0}}); err != nil || swapped {
		t.Fatalf("put for an unknown space: %v %v", swapped, err)
	}

	// Two batches: the active space is filled in place, never "swapped".
	if n, swapped := embedPending(t, s, 4, embedA(t)); n != 4 || swapped {
		t.Fatalf("first batch: %d put, swapped %v", n, swapped)
	}
	if _, _, n := s.PendingVectors(0); n != 3 {
		t.Fatalf("pending after 4 of 7 = %d", n)
	}
	if _, swapped := embedPending(t, s, -1, embedA(t)); swapped {
		t.Fatal("filling the active space reported a swap")
	}
	st := s.VectorStats()
	if st.Active != sigA || st.Building != "" || st.Vectors != 7 || st.Pending != 0 || st.Dims != 4 {
		t.Fatalf("stats = %+v", st)
	}
	if s.ActiveSignature() != sigA {
		t.Fatalf("active signature = %q", s.ActiveSignature())
	}

	// The nearest chunk comes first, with its citation.
	hs := vsearch(t, s, sigA, qGarden, 2, nil)
	if len(hs) != 2 || hs[0].Path != "garden.md" || hitText(t, s, hs[0]) != tTomato ||
		hs[1].Path != "garden.md" || hitText(t, s, hs[1]) != tAphids {
		t.Fatalf("garden query = %+v", hs)
	}
	if got, want := hs[0].Score, cosine(qGarden, textVecA[tTomato]); math.Abs(got-want) > 1e-5 {
		t.Errorf("score = %v, want the cosine %v", got, want)
	}
	if hs[0].Title != "Garden" || hs[0].LineStart != 3 || !reflect.DeepEqual(hs[0].Heading, []string{"Garden"}) {
		t.Errorf("citation = %+v", hs[0])
	}
	for i := 1; i < len(hs); i++ {
		if hs[i].Score > hs[i-1].Score {
			t.Errorf("hits not best first: %+v", hs)
		}
	}

	// A filter is applied inside the search: the garden chunks score
	// higher, yet k in-scope chunks come back.
	for k, want := range map[int][]string{
		2: {"travel/lisbon.md", "travel/porto.md"},
		3: {"travel/lisbon.md", "travel/porto.md", "backup.md"},
	} {
		hs := vsearch(t, s, sigA, qTravel, k, notGarden)
		if got := hitPaths(hs); !reflect.DeepEqual(got, want) {
			t.Errorf("filtered k=%d: %v, want %v", k, got, want)
		}
	}
	if got := hitPaths(vsearch(t, s, sigA, qTravel, 2, nil)); !reflect.DeepEqual(got, []string{"garden.md", "garden.md"}) {
		t.Errorf("unfiltered travel query = %v", got)
	}
	onlyTravel := func(_, p string) bool { return strings.HasPrefix(p, "travel/") }
	if got := hitPaths(vsearch(t, s, sigA, qTravel, 5, onlyTravel)); !reflect.DeepEqual(got, []string{"travel/lisbon.md", "travel/porto.md"}) {
		t.Errorf("k above the in-scope count = %v", got)
	}

	// One vector, two notes: both are found, with the same score.
	hs = vsearch(t, s, sigA, qBread, 2, nil)
	got := hitPaths(hs)
	sort.Strings(got)
	if !reflect.DeepEqual(got, []string{"bread/a.md", "bread/b.md"}) || hs[0].Score != hs[1].Score {
		t.Errorf("shared text = %+v", hs)
	}
	if got := hitPaths(vsearch(t, s, sigA, qBread, 1, func(_, p string) bool { return p == "bread/b.md" })); !reflect.DeepEqual(got, []string{"bread/b.md"}) {
		t.Errorf("shared text, second note in scope = %v", got)
	}

	// Another space, or a query of the wrong size, is refused.
	if _, err := s.VectorSearch(sigB, qGarden, 3, nil); !errors.Is(err, index.ErrNoVectors) {
		t.Errorf("search in another space: %v, want ErrNoVectors", err)
	}
	if _, err := s.VectorSearch(sigA, []float32{1, 0}, 3, nil); err == nil {
		t.Error("a 2-dimensional query was accepted")
	}
}

func TestVectorsReusedByContent(t *testing.T) {
	vault := t.TempDir()
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	syncV(t, s, vault, vecCorpus)
	if err := s.UseEmbedder(sigA, 4); err != nil {
		t.Fatal(err)
	}
	embedPending(t, s, -1, embedA(t))

	// Rename: the delete and the add land in one Sync; the text keeps its
	// vector.
	files := map[string]string{}
	for k, v := range vecCorpus {
		files[k] = v
	}
	files["archive/lisbon.md"] = files["travel/lisbon.md"]
	delete(files, "travel/lisbon.md")
	os.Remove(filepath.Join(vault, "travel", "lisbon.md"))
	res := syncV(t, s, vault, files)
	if res.Indexed != 1 || res.Removed != 1 {
		t.Fatalf("rename sync = %+v", res)
	}
	if _, p, n := s.PendingVectors(10); n != 0 {
		t.Errorf("a renamed note needs %d new vectors (%v), want 0", n, p)
	}
	hs := vsearch(t, s, sigA, textVecA[tTram], 1, nil)
	if len(hs) != 1 || hs[0].Path != "archive/lisbon.md" {
		t.Errorf("renamed note's vector search = %+v", hs)
	}

	// Edit one section: only its chunk is pending.
	files["garden.md"] = "# Garden\n\n" + tTomato + "\n\n## Pests\n\n" + tSlugs + "\n"
	syncV(t, s, vault, files)
	sig, pend, n := pendingTexts(t, s)
	if sig != sigA || n != 1 || pend[textHash(tSlugs)] != tSlugs {
		t.Fatalf("after an edit pending = %q %d %v, want only the edited section", sig, n, pend)
	}
	embedPending(t, s, -1, embedA(t))

	// The old text's vector is collected; shared and live ones stay.
	delete(files, "bread/b.md")
	os.Remove(filepath.Join(vault, "bread", "b.md"))
	syncV(t, s, vault, files)
	before := len(mustStored(t, s, sigA))
	got, err := s.CollectVectors()
	if err != nil || got != 1 {
		t.Fatalf("CollectVectors = %d, %v; want 1 (the replaced Pests text)", got, err)
	}
	stored := mustStored(t, s, sigA)
	if len(stored) != before-1 || slices.Contains(stored, textHash(tAphids)) {
		t.Errorf("stored after collect = %d hashes (had %d), aphids present %v", len(stored), before, slices.Contains(stored, textHash(tAphids)))
	}
	live, _ := liveTexts(t, s)
	for h, text := range live {
		if !slices.Contains(stored, h) {
			t.Errorf("live text %q lost its vector", text)
		}
	}
	if st := s.VectorStats(); st.Vectors != len(live) || st.Pending != 0 {
		t.Errorf("stats = %+v, want %d vectors", st, len(live))
	}
	for _, h := range vsearch(t, s, sigA, textVecA[tAphids], 10, nil) {
		if hitText(t, s, h) == tAphids {
			t.Errorf("collected text still found")
		}
	}
	if hs := vsearch(t, s, sigA, qBread, 2, nil); len(hs) != 2 || hs[0].Path != "bread/a.md" || hs[1].Path == "bread/b.md" {
		t.Errorf("shared text after deleting one of its notes = %+v", hs)
	}
	if n, err := s.CollectVectors(); err != nil || n != 0 {
		t.Errorf("second collect = %d, %v", n, err)
	}
}

// A vector space loaded while a bulk pass holds committed notes that no
// segment shows yet (a cold index with an embedder: the embedding worker
// learns the embedder's space part way through the pass) still has every
// chunk text in its backlog: none is left unembedded until a restart.
func TestBacklogOfASpaceLoadedDuringABulkPass(t *testing.T) {
	s := indextest.Open(t, t.TempDir())
	defer s.Close()
	end := s.BeginBulk()
	if _, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v"},
		indextest.WriteVault(t, t.TempDir(), vecCorpus)); err != nil {
		t.Fatal(err)
	}
	if err := s.UseEmbedder(sigA, 4); err != nil {
		t.Fatal(err)
	}
	end()
	live, _ := liveTexts(t, s)
	_, pend, total := pendingTexts(t, s)
	if total != len(live) || len(pend) != len(live) {
		t.Fatalf("backlog %d texts (%d listed), want every live text: %d", total, len(pend), len(live))
	}
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
}
