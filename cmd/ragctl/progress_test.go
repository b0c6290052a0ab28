package main

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

// progressCases are the progress bar's table cases, shared by the exact
// checks and the golden file.
var progressCases = []struct {
	name  string
	width int
	p     *ipc.Progress
	want  string
}{
	{"0%", 16, &ipc.Progress{Total: 6571}, "[................]  0/6571 files"},
	{"50%", 16, &ipc.Progress{Total: 200, Done: 100, Rate: 412.4, ETASeconds: 13.2}, "[########........]  100/200 files  412/s  ETA 13s"},
	{"100%", 16, &ipc.Progress{Total: 6571, Done: 6571, Rate: 412, ETASeconds: 0}, "[################]  6571/6571 files  412/s"},
	{"unknown total", 16, &ipc.Progress{Done: 1234, Rate: 99.5}, "[................]  1234/? files  100/s"},
	{"brief example", 16, &ipc.Progress{Total: 6571, Done: 1234, Rate: 412, ETASeconds: 12.96}, "[###.............]  1234/6571 files  412/s  ETA 13s"},
	{"rounds down", 10, &ipc.Progress{Total: 3, Done: 2}, "[######....]  2/3 files"},
	{"slow, long ETA", 10, &ipc.Progress{Total: 1000, Done: 10, Rate: 2.5, ETASeconds: 396}, "[..........]  10/1000 files  2.5/s  ETA 6m36s"},
	{"under a second left", 10, &ipc.Progress{Total: 10, Done: 9, Rate: 40, ETASeconds: 0.025}, "[#########.]  9/10 files  40/s  ETA <1s"},
	{"done over total", 10, &ipc.Progress{Total: 5, Done: 7}, "[##########]  7/5 files"},
	{"absurd ETA", 10, &ipc.Progress{Total: 1e9, Done: 1, Rate: 0.001, ETASeconds: 1e12}, "[..........]  1/1000000000 files  <0.1/s"},
	{"infinite rate", 10, &ipc.Progress{Total: 4, Done: 2, Rate: math.Inf(1), ETASeconds: 0}, "[#####.....]  2/4 files"},
	{"zero width", 0, &ipc.Progress{Total: 4, Done: 2}, "[]  2/4 files"},
	{"negative width", -3, &ipc.Progress{Total: 4, Done: 2}, "[]  2/4 files"},
	{"no pass", 8, nil, "[........]"},
}

func TestProgressBar(t *testing.T) {
	for _, tt := range progressCases {
		if got := progressBar(tt.width, tt.p); got != tt.want {
			t.Errorf("%s: progressBar(%d, %+v) =\n  %q, want\n  %q", tt.name, tt.width, tt.p, got, tt.want)
		}
	}
}

func TestProgressBarGolden(t *testing.T) {
	var b strings.Builder
	for _, tt := range progressCases {
		fmt.Fprintf(&b, "%-20s %s\n", tt.name+":", progressBar(tt.width, tt.p))
	}
	// The widths ragctl draws with.
	p := &ipc.Progress{Vault: "notes", Trigger: "watch", Total: 6571, Done: 1234, Rate: 412, ETASeconds: 12.96}
	fmt.Fprintf(&b, "%-20s %s\n", "status -watch:", progressBar(barWidth, p))
	fmt.Fprintf(&b, "%-20s %s\n", "reindex -wait:", reindexLine(&ipc.StatusResponse{Progress: p}))
	golden(t, "progress-bar.golden", []byte(b.String()))
}

func TestReindexLineFits80Columns(t *testing.T) {
	p := &ipc.Progress{Vault: "a-very-long-vault-name-indeed", Total: 999999, Done: 999998, Rate: 99999, ETASeconds: 359999}
	line := reindexLine(&ipc.StatusResponse{Progress: p})
	if n := len([]rune(line)); n >= 80 {
		t.Errorf("reindex line is %d columns: %q", n, line)
	}
	if got := reindexLine(&ipc.StatusResponse{State: ipc.StateIndexing}); got != "waiting for the pass to start…" {
		t.Errorf("without progress: %q", got)
	}
}

func TestShortDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{1234567 * time.Nanosecond, "1ms"},
		{230 * time.Millisecond, "230ms"},
		{1234 * time.Millisecond, "1.2s"},
		{59940 * time.Millisecond, "59.9s"},
		{83400 * time.Millisecond, "1m23s"},
		{2*time.Hour + 500*time.Millisecond, "2h0m1s"},
	}
	for _, tt := range tests {
		if got := shortDuration(tt.d); got != tt.want {
			t.Errorf("shortDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
}
