package segment

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// The anchor keys a segment keeps resolved across searches (a ResolveGen)
// follow the notes they name from view to view: after notes are changed
// (moved to a newer segment), deleted, flushed and merged, a search given
// the kept generation finds what a search resolving every key afresh finds.
func TestKeptAnchorKeysFollowTheViews(t *testing.T) {
	notes := randomNotes(13, 300)
	s := openTestSet(t, Options{FlushBytes: 32 << 10, MergeFactor: 2, FlushAfter: time.Hour})
	resolve := resolverOf(notes)
	r := rand.New(rand.NewPCG(13, 1))
	query := func() Query {
		q := Query{K: 30, Passages: 1, Resolve: resolve}
		for i := range 1 + r.IntN(3) {
			q.Groups = append(q.Groups, Group{Terms: []string{fmt.Sprintf("w%02d", r.IntN(40))}, Pos: i})
		}
		return q
	}
	check := func(step string) {
		t.Helper()
		v := s.View()
		defer v.Release()
		for range 20 {
			q := query()
			fresh := v.Search(q, DefaultParams)
			q.ResolveGen = 1
			if kept := v.Search(q, DefaultParams); !reflect.DeepEqual(kept, fresh) {
				t.Fatalf("%s, %+v: with kept keys\n%+v\nresolved afresh\n%+v", step, q.Groups, kept, fresh)
			}
		}
	}
	seq := uint64(1)
	s.Apply(seq, nil, notes[:200])
	check("first view")
	for round := range 4 {
		seq++
		// Change some notes (their copies move to a new segment), delete
		// others, add the rest bit by bit.
		var puts []*Note
		for range 15 {
			puts = append(puts, notes[r.IntN(200)])
		}
		puts = append(puts, notes[200+25*round:200+25*(round+1)]...)
		s.Apply(seq, []uint64{notes[r.IntN(200)].ID, notes[r.IntN(200)].ID}, puts)
		check(fmt.Sprintf("round %d", round))
		if round%2 == 1 {
			if err := s.Flush(t.Context()); err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("round %d, flushed and merged", round))
		}
	}
}
