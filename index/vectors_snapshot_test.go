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

	s = indextest.Open(t, dir)
	defer s.Close()
	if _, err := s.VectorSearch(sigA, qGarden, 1, nil); !errors.Is(err, index.ErrNoVectors) {
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

			s = indextest.Open(t, dir)
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
			s = indextest.Open(t, dir)
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
	s := indextest.Open(t, dir)
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
	s = indextest.Open(t, dir)
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

	s = indextest.Open(t, dir)
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
