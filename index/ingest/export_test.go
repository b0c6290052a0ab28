package ingest

import "time"

// SetRacyWindow sets how long after its last change a file's stat is
// trusted, until restore is called.
func SetRacyWindow(d time.Duration) (restore func()) {
	old := racyWindow
	racyWindow = d
	return func() { racyWindow = old }
}

// SetReadHook calls h with every file a pass reads, until restore is
// called.
func SetReadHook(h func(abs string)) (restore func()) {
	readHook = h
	return func() { readHook = nil }
}
