package graph

import (
	"slices"
	"unsafe"
)

// Growing the graph's arrays without a copy nothing can interrupt.
//
// The graph keeps its notes, relations, names and strings in a few arrays
// that grow as notes are added: at a few hundred thousand notes the largest
// reach tens of megabytes (the 50× scale vault: relations 98 MB, the
// strings' bytes 73 MB). append copies an array that outgrows its room in
// one memmove, which the Go scheduler cannot preempt: in the execution
// trace of that vault's cold index the writer spent 20+ ms of CPU (120 ms of
// wall time on the loaded machine) copying the strings' bytes at once, and
// a collection's stop of the world, or a status request queued on that P,
// waited for it. grow copies such an array in pieces instead, each a short
// memmove between which the goroutine can be preempted.

// growPiece is how many bytes grow copies at a time, and the size under
// which it leaves the copy to append.
const growPiece = 256 << 10

// grow returns xs with room for n more values: xs itself if it has it, or
// a new array with about a quarter more room than needed (as append gives
// arrays this large), filled in pieces.
func grow[T any](xs []T, n int) []T {
	need := len(xs) + n
	if need <= cap(xs) {
		return xs
	}
	var zero T
	size := max(int(unsafe.Sizeof(zero)), 1)
	if need*size <= growPiece {
		return slices.Grow(xs, n)
	}
	out := make([]T, 0, need+need/4)
	step := max(growPiece/size, 1)
	for i := 0; i < len(xs); i += step {
		out = append(out, xs[i:min(i+step, len(xs))]...)
	}
	return out
}

// extend returns xs lengthened by n zero values, in room made by grow.
func extend[T any](xs []T, n int) []T {
	xs = grow(xs, n)
	at := len(xs)
	xs = xs[:at+n]
	clear(xs[at:])
	return xs
}
