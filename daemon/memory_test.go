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
