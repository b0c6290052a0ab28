//go:build !race

package vector

// raceEnabled shrinks the test data under the race detector.
const raceEnabled = false
