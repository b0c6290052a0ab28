package segment

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// TestWarmAnchors warms a view's anchor keys and checks that searches then
// resolve nothing and find what a search resolving every key afresh finds,
// and that a warm told to stop resolves nothing.
func TestWarmAnchors(t *testing.T) {
	notes := randomNotes(13, 400)
	s := openTestSet(t, Options{FlushBytes: 32 << 10, MergeFactor: 4, FlushAfter: time.Hour})
	for i, seq := 0, uint64(1); i < len(notes); i, seq = i+50, seq+1 {
		s.Apply(seq, nil, notes[i:min(i+50, len(notes))])
	}
	if err := s.Flush(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Apply(100, []uint64{notes[3].ID, notes[77].ID}, notes[200:230])
	v := s.View()
	defer v.Release()
	if len(v.segs) < 2 {
		t.Fatalf("%d segments, want several", len(v.segs))
	}
	resolve := resolverOf(notes)
	calls := 0
	counting := func(key string) []uint64 { calls++; return resolve(key) }

	if v.WarmAnchors(counting, 7, func() bool { return true }) {
		t.Fatal("a warm told to stop reports it went through")
	}
	if calls != 0 {
		t.Fatalf("a warm told to stop resolved %d keys", calls)
	}
	if !v.WarmAnchors(counting, 7, func() bool { return false }) {
		t.Fatal("a warm left to run reports it stopped")
	}
	keys := 0
	for _, ss := range v.segs {
		keys += int(ss.seg.keys)
	}
	if calls == 0 || calls > keys {
		t.Fatalf("warm resolved %d keys of %d", calls, keys)
	}
	calls = 0
	r := rand.New(rand.NewPCG(3, 9))
	for qi := range 60 {
		var groups []Group
		for i := range 1 + r.IntN(4) {
			groups = append(groups, Group{Terms: []string{fmt.Sprintf("w%02d", r.IntN(40))}, Pos: i})
		}
		warm := v.Search(Query{Groups: groups, K: 20, Resolve: counting, ResolveGen: 7}, DefaultParams)
		fresh := v.Search(Query{Groups: groups, K: 20, Resolve: resolve}, DefaultParams)
		if !reflect.DeepEqual(warm, fresh) {
			t.Fatalf("query %d: warmed\n%+v\nresolved afresh\n%+v", qi, warm, fresh)
		}
	}
	if calls != 0 {
		t.Fatalf("searches after the warm resolved %d keys", calls)
	}
}
