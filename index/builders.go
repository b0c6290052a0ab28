package index

import (
	"strconv"
	"strings"

	"github.com/dgraph-io/ristretto/v2/z"
)

// BuildersHeld reports how many table builders' allocators Badger holds:
// in use by a memtable flush or a compaction, or pooled after one. Badger
// keeps up to eight of them after use (ristretto's z.AllocatorPool) and
// lets go of one every 2 s once it builds no more tables, so a cold index
// ends with tens of megabytes of them live for up to ~18 s (~90 MB on the
// 50× scale vault a few seconds after its cold index ended): memory handed
// back before then cannot include theirs. Their count is read from
// z.Allocators, the allocators' public summary ("Tag: Builder Num: 3
// Size: 92 MiB . "); a summary it cannot read counts as none. It covers
// every Badger database of the process.
//
// A race-enabled build (the tests) reports none and reads nothing:
// ristretto's AllocatorPool.Get sets a pooled allocator's Tag without the
// lock z.Allocators reads it under — the same constant string each time,
// so nothing is torn — and the race detector stops a daemon that polls
// the summary while Badger compacts (it did, once, in
// TestCrashDuringSegmentMerge). Such a build settles its memory without
// waiting for the builders; allocatorsIn is tested on its own.
func (s *Store) BuildersHeld() int {
	if raceEnabled {
		return 0
	}
	return allocatorsIn(z.Allocators())
}

// allocatorsIn sums the Num fields of a z.Allocators summary.
func allocatorsIn(summary string) int {
	n := 0
	for _, part := range strings.Split(summary, " . ") {
		_, rest, ok := strings.Cut(part, "Num: ")
		if !ok {
			continue
		}
		num, _, _ := strings.Cut(rest, " ")
		if k, err := strconv.Atoi(num); err == nil && k > 0 {
			n += k
		}
	}
	return n
}
