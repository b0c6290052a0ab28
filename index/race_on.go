//go:build race

package index

// raceEnabled reports a race-enabled build (BuildersHeld).
const raceEnabled = true
