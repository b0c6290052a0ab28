package index

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// Two embedding spaces of the same embedder family: B is A with its
// components permuted, so a query finds different chunks in each and a
// mixed-up space shows in the results.
const (
	sigA = "test-embedder/a dims=4"
	sigB = "test-embedder/b dims=4"
)

// vecCorpus has one chunk per section; the two bread notes hold the same
// chunk text under different titles.
var vecCorpus = map[string]string{
	"garden.md":        "# Garden\n\nTomatoes need deep watering in the garden.\n\n## Pests\n\nAphids on the roses; spray soapy water.\n",
	"backup.md":        "# Backups\n\nRestic snapshots go to the NAS every night.\n\n## Retention\n\nKeep seven daily snapshots for retention.\n",
	"travel/lisbon.md": "# Lisbon\n\nTram 28 climbs through Alfama.\n",
	"travel/porto.md":  "# Porto\n\nThe funicular climbs from the river.\n",
	"bread/a.md":       "# Bread\n\nKnead the dough with flour and yeast.\n",
	"bread/b.md":       "# Loaf\n\nKnead the dough with flour and yeast.\n",
}

// Chunk texts of vecCorpus and their vectors in space A.
const (
	tTomato  = "Tomatoes need deep watering in the garden."
	tAphids  = "Aphids on the roses; spray soapy water."
	tRestic  = "Restic snapshots go to the NAS every night."
	tKeep    = "Keep seven daily snapshots for retention."
	tTram    = "Tram 28 climbs through Alfama."
	tFunic   = "The funicular climbs from the river."
	tKnead   = "Knead the dough with flour and yeast."
	tSlugs   = "Slugs eat the lettuce at night."
	tAzulejo = "Azulejo tiles cover the station walls."
)

var textVecA = map[string][]float32{
	tTomato:  {1, 0.1, 0, 0},
	tAphids:  {0.8, 0, 0.3, 0},
	tRestic:  {0, 1, 0, 0.1},
	tKeep:    {0.1, 0.9, 0, 0.3},
	tTram:    {0, 0, 1, 0},
	tFunic:   {0, 0.2, 0.9, 0.1},
	tKnead:   {0, 0, 0.1, 1},
	tSlugs:   {0.9, 0.3, 0, 0.2},
	tAzulejo: {0.1, 0, 0.8, 0.4},
}

func embedA(t testing.TB) func(string) []float32 {
	return func(text string) []float32 {
		v, ok := textVecA[text]
		if !ok {
			t.Fatalf("no test vector for chunk text %q", text)
		}
		return v
	}
}

func embedB(t testing.TB) func(string) []float32 {
	a := embedA(t)
	return func(text string) []float32 {
		v := a(text)
		return []float32{v[1], v[0], v[3], v[2]}
	}
}

// textHash is the vector key of a chunk text: the first 8 bytes of its
// SHA-256.
func textHash(text string) uint64 {
	sum := sha256.Sum256([]byte(text))
	return binary.BigEndian.Uint64(sum[:8])
}

func syncV(t testing.TB, s *Store, dir string, files map[string]string) SyncResult {
	t.Helper()
	res, err := s.Sync(context.Background(), SyncOptions{Vault: "v", Complete: true}, vaultFiles(t, dir, files))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// liveTexts returns the text of every live chunk of vault "v" by hash, and
// how many chunks there are.
func liveTexts(t testing.TB, s *Store) (map[uint64]string, int) {
	t.Helper()
	docs, err := s.Documents("v")
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]string{}
	n := 0
	for _, d := range docs {
		if d.Status != StatusOK {
			continue
		}
		for ord := range d.Chunks {
			cs, err := s.Chunks([]ChunkRef{{d.ID, uint32(ord)}})
			if err != nil {
				t.Fatal(err)
			}
			out[textHash(cs[0].Text)] = cs[0].Text
			n++
		}
	}
	return out, n
}

// pendingTexts lists every pending chunk with its text, checking that each
// pending hash is its chunk's text hash and that no text is listed twice.
func pendingTexts(t testing.TB, s *Store) (string, map[uint64]string, int) {
	t.Helper()
	sig, pend, total := s.PendingVectors(1 << 20)
	if len(pend) != total {
		t.Fatalf("PendingVectors returned %d of %d with an unlimited limit", len(pend), total)
	}
	out := map[uint64]string{}
	for _, p := range pend {
		cs, err := s.Chunks([]ChunkRef{p.Ref})
		if err != nil {
			t.Fatal(err)
		}
		if cs[0].Ref != p.Ref {
			t.Fatalf("pending chunk %v does not exist", p.Ref)
		}
		if h := textHash(cs[0].Text); h != p.Hash {
			t.Fatalf("pending hash %x is not the hash %x of its chunk text %q", p.Hash, h, cs[0].Text)
		}
		if _, dup := out[p.Hash]; dup {
			t.Fatalf("text %q is pending twice", cs[0].Text)
		}
		out[p.Hash] = cs[0].Text
	}
	return sig, out, total
}

// embedPending puts vectors for up to n pending chunks (all when n < 0) in
// one PutVectors call and reports whether it swapped spaces.
func embedPending(t testing.TB, s *Store, n int, embed func(string) []float32) (int, bool) {
	t.Helper()
	sig, texts, _ := pendingTexts(t, s)
	hashes := make([]uint64, 0, len(texts))
	for h := range texts {
		hashes = append(hashes, h)
	}
	slices.Sort(hashes)
	if n >= 0 && n < len(hashes) {
		hashes = hashes[:n]
	}
	vecs := make([][]float32, len(hashes))
	for i, h := range hashes {
		vecs[i] = embed(texts[h])
	}
	swapped, err := s.PutVectors(sig, hashes, vecs)
	if err != nil {
		t.Fatal(err)
	}
	return len(hashes), swapped
}

func vsearch(t testing.TB, s *Store, sig string, q []float32, k int, filter Filter) []Hit {
	t.Helper()
	hs, err := s.VectorSearch(sig, q, k, filter)
	if err != nil {
		t.Fatalf("VectorSearch(%s): %v", sig, err)
	}
	return hs
}

func hitPaths(hs []Hit) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.Path
	}
	return out
}

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return d / math.Sqrt(na*nb)
}

// hitText loads the text of a hit's chunk.
func hitText(t testing.TB, s *Store, h Hit) string {
	t.Helper()
	cs, err := s.Chunks([]ChunkRef{h.Ref})
	if err != nil || cs[0].Ref != h.Ref {
		t.Fatalf("chunk of hit %+v: %v", h, err)
	}
	return cs[0].Text
}

// builtStore is a store over vecCorpus with space A complete.
func builtStore(t testing.TB, dir string) *Store {
	t.Helper()
	s := openStore(t, dir)
	syncV(t, s, t.TempDir(), vecCorpus)
	if err := s.UseEmbedder(sigA, 4); err != nil {
		t.Fatal(err)
	}
	embedPending(t, s, -1, embedA(t))
	if _, _, n := s.PendingVectors(0); n != 0 {
		t.Fatalf("%d still pending after embedding everything", n)
	}
	return s
}

var (
	qGarden = []float32{1, 0, 0, 0}
	qTravel = []float32{1, 0, 0.5, 0} // garden scores higher; travel is next
	qBread  = []float32{0, 0, 0, 1}
)

func notGarden(_, p string) bool { return p != "garden.md" }

// probe runs a fixed set of searches, for comparing a store with itself
// after a reopen. Hits of equal score (the notes sharing a text always
// tie) are put in chunk order: the index does not promise an order among
// them, so no k cuts through a tie.
func probe(t testing.TB, s *Store, sig string) [][]Hit {
	t.Helper()
	out := [][]Hit{
		vsearch(t, s, sig, qGarden, 3, nil),
		vsearch(t, s, sig, qTravel, 7, notGarden), // every chunk outside the garden note
		vsearch(t, s, sig, qBread, 2, nil),
		vsearch(t, s, sig, []float32{0.3, 0.3, 0.3, 0.3}, 20, nil),
	}
	for _, hs := range out {
		sort.SliceStable(hs, func(i, j int) bool {
			if hs[i].Score != hs[j].Score {
				return hs[i].Score > hs[j].Score
			}
			if hs[i].Ref.Doc != hs[j].Ref.Doc {
				return hs[i].Ref.Doc < hs[j].Ref.Doc
			}
			return hs[i].Ref.Ord < hs[j].Ref.Ord
		})
	}
	return out
}

func TestVectorsPendingPutAndSearch(t *testing.T) {
	s := openStore(t, t.TempDir())
	defer s.Close()
	syncV(t, s, t.TempDir(), vecCorpus)

	// No embedder yet: nothing to fill, nothing to search.
	if sig, p, n := s.PendingVectors(10); sig != "" || len(p) != 0 || n != 0 {
		t.Fatalf("pending without an embedder = %q %v %d", sig, p, n)
	}
	if _, err := s.VectorSearch(sigA, qGarden, 3, nil); !errors.Is(err, ErrNoVectors) {
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
	if _, err := s.VectorSearch(sigB, qGarden, 3, nil); !errors.Is(err, ErrNoVectors) {
		t.Errorf("search in another space: %v, want ErrNoVectors", err)
	}
	if _, err := s.VectorSearch(sigA, []float32{1, 0}, 3, nil); err == nil {
		t.Error("a 2-dimensional query was accepted")
	}
}

func TestVectorsSignatureChangeSwapsWhenComplete(t *testing.T) {
	dir := t.TempDir()
	s := builtStore(t, dir)
	defer func() { s.Close() }()
	if err := s.SaveVectorSnapshots(); err != nil {
		t.Fatal(err)
	}
	snapA := s.snapshotPath(SpaceID(sigA))
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
	if _, err := s.VectorSearch(sigB, qGarden, 3, nil); !errors.Is(err, ErrNoVectors) {
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
	if _, err := s.VectorSearch(sigA, qGarden, 3, nil); !errors.Is(err, ErrNoVectors) {
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
	s = openStore(t, dir)
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

func mustStored(t testing.TB, s *Store, sig string) []uint64 {
	t.Helper()
	hs, err := s.storedHashes(SpaceID(sig))
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

	s = openStore(t, dir)
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
	s := openStore(t, t.TempDir())
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

func TestVectorSnapshotReopen(t *testing.T) {
	dir := t.TempDir()
	s := builtStore(t, dir)
	want := probe(t, s, sigA)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	snaps, _ := filepath.Glob(filepath.Join(dir, "vectors", "*.snap"))
	if len(snaps) != 1 {
		t.Fatalf("snapshots after Close = %v", snaps)
	}

	s = openStore(t, dir)
	defer s.Close()
	if _, err := s.VectorSearch(sigA, qGarden, 1, nil); !errors.Is(err, ErrNoVectors) {
		t.Errorf("vectors served before UseEmbedder: %v", err)
	}
	if err := s.UseEmbedder(sigA, 4); err != nil {
		t.Fatal(err)
	}
	if got := probe(t, s, sigA); !reflect.DeepEqual(got, want) {
		t.Errorf("after reopen:\n got %+v\nwant %+v", got, want)
	}
	if st := s.VectorStats(); st.Note != "" || st.Vectors != 7 || st.Pending != 0 || st.Dims != 4 {
		t.Errorf("stats after a clean reopen = %+v", st)
	}
}

func TestVectorSnapshotCorruptIsRebuilt(t *testing.T) {
	corruptions := map[string]func(b []byte) []byte{
		"bad magic":     func(b []byte) []byte { b[0] ^= 0xff; return b },
		"key list byte": func(b []byte) []byte { b[24+3] ^= 0x10; return b },
		"index byte":    func(b []byte) []byte { b[len(b)-40] ^= 0x01; return b },
		"checksum byte": func(b []byte) []byte { b[len(b)-1] ^= 0x80; return b },
		"truncated":     func(b []byte) []byte { return b[:len(b)/2] },
		"empty":         func([]byte) []byte { return nil },
	}
	for name, corrupt := range corruptions {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := builtStore(t, dir)
			want := probe(t, s, sigA)
			s.Close()
			snaps, _ := filepath.Glob(filepath.Join(dir, "vectors", "*.snap"))
			if len(snaps) != 1 {
				t.Fatalf("snapshots = %v", snaps)
			}
			b, err := os.ReadFile(snaps[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(snaps[0], corrupt(b), 0o600); err != nil {
				t.Fatal(err)
			}

			s = openStore(t, dir)
			if err := s.UseEmbedder(sigA, 4); err != nil {
				t.Fatal(err)
			}
			if got := probe(t, s, sigA); !reflect.DeepEqual(got, want) {
				t.Errorf("after rebuild:\n got %+v\nwant %+v", got, want)
			}
			if st := s.VectorStats(); !strings.Contains(st.Note, "rebuilt") || st.Vectors != 7 {
				t.Errorf("stats = %+v, want a note saying the index was rebuilt", st)
			}
			// The rebuilt index is saved: the next start is clean.
			s.Close()
			s = openStore(t, dir)
			defer s.Close()
			if err := s.UseEmbedder(sigA, 4); err != nil {
				t.Fatal(err)
			}
			if st := s.VectorStats(); st.Note != "" {
				t.Errorf("second reopen note = %q, want none", st.Note)
			}
			if got := probe(t, s, sigA); !reflect.DeepEqual(got, want) {
				t.Errorf("after second reopen: results differ")
			}
		})
	}
}

func TestVectorSnapshotStaleIsCaughtUp(t *testing.T) {
	dir, vault := t.TempDir(), t.TempDir()
	s := openStore(t, dir)
	syncV(t, s, vault, vecCorpus)
	if err := s.UseEmbedder(sigA, 4); err != nil {
		t.Fatal(err)
	}
	embedPending(t, s, -1, embedA(t))
	s.Close()
	snaps, _ := filepath.Glob(filepath.Join(dir, "vectors", "*.snap"))
	if len(snaps) != 1 {
		t.Fatalf("snapshots = %v", snaps)
	}
	old, err := os.ReadFile(snaps[0])
	if err != nil {
		t.Fatal(err)
	}

	// Reopen, index a new note and drop the vectors of an edited one, as
	// a run that then dies without saving its snapshot would.
	s = openStore(t, dir)
	if err := s.UseEmbedder(sigA, 4); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for k, v := range vecCorpus {
		files[k] = v
	}
	files["travel/sintra.md"] = "# Sintra\n\n" + tAzulejo + "\n"
	files["garden.md"] = "# Garden\n\n" + tTomato + "\n\n## Pests\n\n" + tSlugs + "\n"
	syncV(t, s, vault, files)
	embedPending(t, s, -1, embedA(t))
	if n, err := s.CollectVectors(); err != nil || n != 1 {
		t.Fatalf("collect = %d, %v", n, err)
	}
	want := probe(t, s, sigA)
	s.Close()
	if err := os.WriteFile(snaps[0], old, 0o600); err != nil {
		t.Fatal(err)
	}

	s = openStore(t, dir)
	defer s.Close()
	if err := s.UseEmbedder(sigA, 4); err != nil {
		t.Fatal(err)
	}
	st := s.VectorStats()
	if !strings.Contains(st.Note, "stale") || !strings.Contains(st.Note, "2 added, 1 removed") || st.Vectors != 8 || st.Pending != 0 {
		t.Errorf("stats = %+v, want a stale snapshot caught up (2 added, 1 removed)", st)
	}
	if got := probe(t, s, sigA); !reflect.DeepEqual(got, want) {
		t.Errorf("after catching up:\n got %+v\nwant %+v", got, want)
	}
	hs := vsearch(t, s, sigA, textVecA[tAzulejo], 1, nil)
	if len(hs) != 1 || hs[0].Path != "travel/sintra.md" {
		t.Errorf("vector added after the snapshot not found: %+v", hs)
	}
	for _, h := range vsearch(t, s, sigA, textVecA[tAphids], 10, nil) {
		if hitText(t, s, h) == tAphids {
			t.Errorf("vector deleted after the snapshot still served: %+v", h)
		}
	}
}

func TestVectorsReusedByContent(t *testing.T) {
	vault := t.TempDir()
	s := openStore(t, t.TempDir())
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
