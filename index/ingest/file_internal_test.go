package ingest

import (
	"testing"
	"time"

	"github.com/ragd/ragd/index"
)

// A record is racily clean while its file's last change (modification or
// status change) is within racyWindow of when it was stat'ed for reading.
func TestRacy(t *testing.T) {
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		mtime, ctime time.Duration // before at
		want         bool
	}{
		{time.Hour, time.Hour, false},
		{time.Hour, time.Second, true}, // a chmod or a restored mtime moved the ctime
		{racyWindow, time.Hour, true},
		{racyWindow + time.Nanosecond, racyWindow + time.Nanosecond, false},
		{-time.Second, time.Hour, true}, // a clock ahead of ours
	} {
		d := &index.Document{ModTime: at.Add(-tc.mtime), CTime: at.Add(-tc.ctime).UnixNano(), StatAt: at.UnixNano()}
		if got := racy(d); got != tc.want {
			t.Errorf("mtime %v, ctime %v before the stat: racy %v, want %v", tc.mtime, tc.ctime, got, tc.want)
		}
	}
}
