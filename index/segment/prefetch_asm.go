//go:build (amd64 || arm64) && !purego

package segment

// prefetch asks the processor to bring the cache line at addr closer (a
// hint: it never faults, whatever addr is). The rows the streaming pass
// reads for each posting are scattered over a segment's mapped tables;
// asked for a few postings ahead, their cache misses overlap the scoring
// instead of stalling it one after another.
func prefetch(addr uintptr)
