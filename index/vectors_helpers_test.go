package index_test

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/indextest"
	"github.com/ragd/ragd/index/ingest"
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

func syncV(t testing.TB, s *index.Store, dir string, files map[string]string) ingest.SyncResult {
	t.Helper()
	res, err := ingest.New(s, ingest.Options{}).Sync(context.Background(), ingest.SyncOptions{Vault: "v"}, indextest.WriteVault(t, dir, files))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check(); err != nil { // the backlog followed the writes
		t.Fatal(err)
	}
	return res
}

// liveTexts returns the text of every live chunk of vault "v" by hash, and
// how many chunks there are.
func liveTexts(t testing.TB, s *index.Store) (map[uint64]string, int) {
	t.Helper()
	docs, err := s.Documents("v")
	if err != nil {
		t.Fatal(err)
	}
	out := map[uint64]string{}
	n := 0
	for _, d := range docs {
		if d.Status != index.StatusOK {
			continue
		}
		for ord := range d.Chunks {
			cs, err := s.Chunks([]index.ChunkRef{{d.ID, uint32(ord)}})
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
func pendingTexts(t testing.TB, s *index.Store) (string, map[uint64]string, int) {
	t.Helper()
	sig, pend, total := s.PendingVectors(1 << 20)
	if len(pend) != total {
		t.Fatalf("PendingVectors returned %d of %d with an unlimited limit", len(pend), total)
	}
	out := map[uint64]string{}
	for _, p := range pend {
		cs, err := s.Chunks([]index.ChunkRef{p.Ref})
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
func embedPending(t testing.TB, s *index.Store, n int, embed func(string) []float32) (int, bool) {
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
	if err := s.Check(); err != nil { // the backlog followed the vectors
		t.Fatal(err)
	}
	return len(hashes), swapped
}

func vsearch(t testing.TB, s *index.Store, sig string, q []float32, k int, filter index.Filter) []index.Hit {
	t.Helper()
	hs, err := s.VectorSearch(sig, q, k, filter)
	if err != nil {
		t.Fatalf("VectorSearch(%s): %v", sig, err)
	}
	return hs
}

func hitPaths(hs []index.Hit) []string {
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
func hitText(t testing.TB, s *index.Store, h index.Hit) string {
	t.Helper()
	cs, err := s.Chunks([]index.ChunkRef{h.Ref})
	if err != nil || cs[0].Ref != h.Ref {
		t.Fatalf("chunk of hit %+v: %v", h, err)
	}
	return cs[0].Text
}

// builtStore is a store over vecCorpus with space A complete.
func builtStore(t testing.TB, dir string) *index.Store {
	t.Helper()
	s := indextest.Open(t, dir)
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
func probe(t testing.TB, s *index.Store, sig string) [][]index.Hit {
	t.Helper()
	out := [][]index.Hit{
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
