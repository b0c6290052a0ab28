package daemon

import (
	"math"
	"runtime/debug"
	"testing"
)

func TestStartupMemoryLimitIsRestored(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	restore := limitStartupMemory()
	if got := debug.SetMemoryLimit(-1); got != startupMemoryLimit {
		t.Errorf("limit during start-up %d, want %d", got, startupMemoryLimit)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit after start-up %d, want none", got)
	}

	// A lower limit set by the user (GOMEMLIMIT) is kept.
	debug.SetMemoryLimit(64 << 20)
	restore = limitStartupMemory()
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Errorf("limit during start-up %d, want the user's", got)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != 64<<20 {
		t.Errorf("limit after start-up %d, want the user's", got)
	}
}

// TestStartupPacerKeepsTheUsersGOGC: the start-up pass lowers GOGC to
// startupGOGC and raises it to largeGOGC, but keeps one the user set lower
// (or higher, past largeHeap) or turned off, and puts back the one it found.
func TestStartupPacerKeepsTheUsersGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, c := range []struct {
		found, mid, large int
	}{
		{100, startupGOGC, largeGOGC},
		{30, 30, largeGOGC},
		{400, startupGOGC, 400},
		{-1, -1, -1},
	} {
		debug.SetGCPercent(c.found)
		p := pacer{gogc: currentGOGC()}
		p.set(startupGOGC, false)
		if got := currentGOGC(); got != c.mid {
			t.Errorf("GOGC %d: %d below largeHeap, want %d", c.found, got, c.mid)
		}
		p.set(largeGOGC, true)
		if got := currentGOGC(); got != c.large {
			t.Errorf("GOGC %d: %d past largeHeap, want %d", c.found, got, c.large)
		}
		p.restore()
		if got := currentGOGC(); got != c.found {
			t.Errorf("GOGC %d: %d after the pass", c.found, got)
		}
	}
}
