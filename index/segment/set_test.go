package segment

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// searchAll runs every test query against the set's current view.
func searchAll(s *Set) [][]NoteHit {
	v := s.View()
	defer v.Release()
	var out [][]NoteHit
	for _, q := range queries() {
		out = append(out, v.Search(Query{Groups: q, K: 25}, testParams))
	}
	return out
}

func sameResults(t *testing.T, what string, got, want [][]NoteHit) {
	t.Helper()
	for i := range want {
		sameHits(t, fmt.Sprintf("%s, query %d", what, i), got[i], want[i])
	}
}

// freshResults builds a set holding exactly notes in one Apply.
func freshResults(t *testing.T, notes []*Note) [][]NoteHit {
	t.Helper()
	s, _, err := OpenSet(Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Apply(1, nil, notes)
	return searchAll(s)
}

func TestSetApplyFlushMergeReopen(t *testing.T) {
	dir := t.TempDir()
	notes := randomNotes(10, 300)
	var flushed []uint64
	var mu sync.Mutex
	opts := Options{Dir: dir, FlushBytes: 16 << 10, MergeFactor: 3, FlushAfter: time.Hour,
		OnFlush: func(seq uint64) { mu.Lock(); flushed = append(flushed, seq); mu.Unlock() }}
	s, seq, err := OpenSet(opts)
	if err != nil || seq != 0 {
		t.Fatalf("open: %v, seq %d", err, seq)
	}
	// Add in small batches, replace some notes, delete others.
	live := map[uint64]*Note{}
	seq = 0
	for i := 0; i < len(notes); i += 10 {
		seq++
		batch := notes[i:min(i+10, len(notes))]
		s.Apply(seq, nil, batch)
		for _, n := range batch {
			live[n.ID] = n
		}
		if i%30 == 20 {
			seq++
			victim := notes[i-15]
			s.Apply(seq, []uint64{victim.ID}, nil)
			delete(live, victim.ID)
			seq++
			s.Apply(seq, nil, []*Note{notes[i-10]}) // a re-put of an unchanged note
		}
	}
	var want []*Note
	for _, n := range notes {
		if live[n.ID] != nil {
			want = append(want, n)
		}
	}
	fresh := freshResults(t, want)
	sameResults(t, "before close", searchAll(s), fresh)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(flushed) == 0 || flushed[len(flushed)-1] != seq {
		t.Fatalf("flushes %v, want the last at %d", flushed, seq)
	}
	mu.Unlock()

	s2, got, err := OpenSet(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got != seq {
		t.Fatalf("reopened at seq %d, want %d", got, seq)
	}
	sameResults(t, "after reopen", searchAll(s2), fresh)
	in := s2.Info()
	if in.Memory != 0 || in.Segments == 0 {
		t.Fatalf("after reopen: %+v", in)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != in.Segments+1 {
		t.Fatalf("%d files in the segment dir for %d segments: strays left", len(ents), in.Segments)
	}
}

// A crash between writing a segment file and the manifest leaves a stray
// file and the old manifest: reopening ignores (and removes) the stray and
// reports the old sequence number, so the caller replays from there.
func TestSetStraysAndCorruptManifest(t *testing.T) {
	dir := t.TempDir()
	notes := randomNotes(11, 40)
	s, _, err := OpenSet(Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	s.Apply(5, nil, notes[:20])
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(dir, "00000099.seg")
	os.WriteFile(stray, Build(notes[20:]), 0o600)
	os.WriteFile(filepath.Join(dir, "MANIFEST.tmp"), []byte("{"), 0o600)
	s2, seq, err := OpenSet(Options{Dir: dir})
	if err != nil || seq != 5 {
		t.Fatalf("reopen: %v, seq %d", err, seq)
	}
	sameResults(t, "after a crashed flush", searchAll(s2), freshResults(t, notes[:20]))
	s2.Close()
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Fatal("stray segment file not removed")
	}
	os.WriteFile(filepath.Join(dir, manifestName), []byte(`{"version":1,"seq":5,"crc":1}`), 0o600)
	if _, _, err := OpenSet(Options{Dir: dir}); err == nil {
		t.Fatal("a corrupt manifest opened")
	}
	if err := Reset(dir); err != nil {
		t.Fatal(err)
	}
	s3, seq, err := OpenSet(Options{Dir: dir})
	if err != nil || seq != 0 {
		t.Fatalf("after reset: %v, seq %d", err, seq)
	}
	s3.Close()
}

// Searches run while Apply, merges and flushes change the set; every
// search sees a consistent view (run with -race).
func TestSetConcurrentReaders(t *testing.T) {
	notes := randomNotes(12, 400)
	s, _, err := OpenSet(Options{Dir: t.TempDir(), FlushBytes: 8 << 10, MergeFactor: 2, FlushAfter: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				v := s.View()
				for _, q := range queries() {
					for _, h := range v.Search(Query{Groups: q, K: 10, Passages: 2}, DefaultParams) {
						if _, ok := v.Find(h.ID); !ok {
							t.Error("a hit's note is not in its own view")
						}
					}
				}
				v.Release()
			}
		}()
	}
	for i := 0; i < len(notes); i += 5 {
		s.Apply(uint64(i+1), []uint64{notes[max(i-7, 0)].ID}, notes[i:i+5])
	}
	close(stop)
	wg.Wait()
}
