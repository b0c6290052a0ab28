package segment

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// openTestSet opens a set with opt in a directory of the test's own, closed
// when the test ends.
func openTestSet(t *testing.T, opt Options) *Set {
	t.Helper()
	opt.Dir = t.TempDir()
	s, _, err := OpenSet(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

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
	s := openTestSet(t, Options{})
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
	s := openTestSet(t, Options{FlushBytes: 8 << 10, MergeFactor: 2, FlushAfter: time.Hour})
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

// TestSetBulk applies changes in bulk mode — notes added, deleted before
// their segment is made, replaced while the builder holds them, deleted
// from earlier segments — and checks what searches see, that a flush in
// the middle records only changes wholly in segments (a restart replaying
// the journal from there converges), and that EndBulk makes every note
// searchable.
func TestSetBulk(t *testing.T) {
	dir := t.TempDir()
	notes := randomNotes(11, 400)
	opts := Options{Dir: dir, FlushBytes: 1 << 30, BulkBytes: 24 << 10, FlushAfter: time.Hour}
	s, _, err := OpenSet(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	type change struct {
		dels []uint64
		puts []*Note
	}
	var log []change
	live := map[uint64]*Note{}
	apply := func(dels []uint64, puts []*Note) {
		log = append(log, change{dels, puts})
		s.Apply(uint64(len(log)), dels, puts)
		for _, id := range dels {
			delete(live, id)
		}
		for _, n := range puts {
			live[n.ID] = n
		}
	}
	want := func() []*Note {
		var out []*Note
		for _, n := range notes {
			if live[n.ID] != nil {
				out = append(out, n)
			}
		}
		return out
	}
	s.BeginBulk()
	apply(nil, notes[:5])
	s.mu.Lock()
	got := s.segmentsSeq()
	s.mu.Unlock()
	if got != 0 {
		t.Fatalf("with change 1 in the builder the segments hold changes up to %d, want 0", got)
	}
	if v := s.View(); v.Stats().Notes != 0 {
		t.Fatalf("%d notes searchable before their segment is made", v.Stats().Notes)
	}
	var crash string
	for i := 5; i < len(notes); i += 10 {
		apply(nil, notes[i:min(i+10, len(notes))])
		switch i % 60 {
		case 15:
			apply([]uint64{notes[i-3].ID, notes[i+2].ID}, nil) // in the builder or just made
		case 35:
			apply(nil, []*Note{notes[i+1]}) // replaced while the builder holds it
		case 45:
			apply([]uint64{notes[i-40].ID}, nil) // in an earlier segment
		}
		if i == 205 {
			// A flush with notes in the builder, then a copy of the
			// directory as a crash would leave it.
			if err := s.flush(false); err != nil {
				t.Fatal(err)
			}
			crash = t.TempDir()
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				os.WriteFile(filepath.Join(crash, e.Name()), b, 0o600)
			}
		}
	}
	s.EndBulk()
	fresh := freshResults(t, want())
	sameResults(t, "after EndBulk", searchAll(s), fresh)
	if in := s.Info(); in.Memory > 2+len(notes)/50 {
		t.Fatalf("bulk mode left %d in-memory segments for %d notes", in.Memory, len(notes))
	}

	// The crash copy: replaying the changes after its manifest gives the
	// same index.
	c, seq, err := OpenSet(Options{Dir: crash, FlushAfter: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if seq == 0 || seq >= uint64(len(log)) {
		t.Fatalf("the crash copy holds changes up to %d of %d", seq, len(log))
	}
	for k := seq; k < uint64(len(log)); k++ {
		ch := log[k]
		c.Apply(k+1, ch.dels, nil)
		c.Apply(k+1, nil, ch.puts)
	}
	sameResults(t, "crash copy replayed", searchAll(c), fresh)
}

// TestSetBulkRamp checks that a bulk pass makes its first segments small,
// so the first notes of a cold index are searchable early, then doubles
// them up to BulkBytes.
func TestSetBulkRamp(t *testing.T) {
	notes := randomNotes(12, 2000)
	bulk := int64(bulkFloor) << bulkRamp
	s := openTestSet(t, Options{FlushBytes: 1 << 30, BulkBytes: bulk, FlushAfter: time.Hour})
	s.BeginBulk()
	var sizes []int64 // the builder's size when each segment was made
	var size int64
	for i, n := range notes {
		before := s.View().Stats().Notes
		s.Apply(uint64(i+1), nil, []*Note{n})
		s.bmu.Lock()
		held := s.pend != nil
		if held {
			size = s.pend.size
		} else {
			sizes = append(sizes, size)
		}
		s.bmu.Unlock()
		if after := s.View().Stats().Notes; after != before && held {
			t.Fatalf("note %d: %d notes searchable, %d before, with no segment made", i, after, before)
		}
	}
	if len(sizes) < 2 {
		t.Fatalf("%d segments made in bulk mode, want at least 2 (sizes %v)", len(sizes), sizes)
	}
	for k, sz := range sizes {
		want := max(bulk>>(bulkRamp-min(k, bulkRamp)), bulkFloor)
		if sz < want-want/8 || sz > want+want/8 { // sz: before the last note added
			t.Errorf("segment %d made at %d bytes, want about %d", k, sz, want)
		}
	}
	if got := s.View().Stats().Notes; got == 0 {
		t.Fatal("nothing searchable before EndBulk")
	}
	s.EndBulk()
	if got := s.View().Stats().Notes; got != int64(len(notes)) {
		t.Fatalf("%d notes searchable after EndBulk, want %d", got, len(notes))
	}
}

// TestFlushReturnsAfterTheMergesItMadeDue: Flush answers once the merges
// its flush made due are done, so that memory the caller hands back to the
// system after it (the daemon after its start-up pass) is not taken again
// at once by a merge. The second flush leaves two small segment files, a
// tier of MergeFactor 2: they are one when Flush returns.
func TestFlushReturnsAfterTheMergesItMadeDue(t *testing.T) {
	notes := randomNotes(7, 80)
	s := openTestSet(t, Options{FlushBytes: 1 << 30, MergeFactor: 2, FlushAfter: time.Hour})
	for i, seq := 0, uint64(1); i < len(notes); i, seq = i+40, seq+1 {
		s.Apply(seq, nil, notes[i:i+40])
		if err := s.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	if in := s.Info(); in.Segments != 1 || in.Memory != 0 {
		t.Fatalf("after the second Flush: %d segment files and %d in memory, want 1 and 0 (the tier merged)", in.Segments, in.Memory)
	}
	v := s.View()
	defer v.Release()
	for _, n := range notes {
		if _, ok := v.Find(n.ID); !ok {
			t.Fatalf("note %d not in the merged segment", n.ID)
		}
	}
}

// The set gives way (Options.Yield) while it lays out a bulk segment and
// while it merges segment files, and what it lays out is the same.
func TestSetYieldsWhileLayingOut(t *testing.T) {
	notes := randomNotes(5, 1000)
	var calls atomic.Int64 // Apply's goroutine and the background loop's
	s := openTestSet(t, Options{FlushBytes: 1 << 30, MergeFactor: 2, FlushAfter: time.Hour,
		Yield: func() { calls.Add(1) }})
	s.BeginBulk()
	s.Apply(1, nil, notes[:500])
	s.EndBulk()
	bulk := calls.Load()
	if bulk == 0 {
		t.Fatal("no yield while a bulk segment of 500 notes was laid out")
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Apply(2, nil, notes[500:])
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	if in := s.Info(); in.Segments != 1 || in.Memory != 0 {
		t.Fatalf("after the second Flush: %d segment files and %d in memory, want 1 and 0 (merged)", in.Segments, in.Memory)
	}
	if calls.Load() == bulk {
		t.Fatal("no yield while two segment files of 500 notes each were merged")
	}
	sameResults(t, "laid out with yields", searchAll(s), freshResults(t, notes))
}
