//go:build race

package vector

// raceEnabled shrinks the test data under the race detector, which slows
// the graph code about tenfold.
const raceEnabled = true
