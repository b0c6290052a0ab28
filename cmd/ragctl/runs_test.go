package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

// sampleRuns are runs newest first, as the daemon lists them.
func sampleRuns() []ipc.Run {
	at := func(d time.Duration) time.Time { return testNow.Add(-d) }
	end := func(start time.Time, took time.Duration) *time.Time { t := start.Add(took); return &t }
	runs := []ipc.Run{
		// Still running.
		{ID: "6", Vault: "notes", Trigger: "manual", Start: at(2 * time.Second)},
		{ID: "5", Vault: "notes", Trigger: "watch", Paths: 3, Start: at(time.Minute), Indexed: 2, Removed: 1},
		{ID: "4", Vault: "usb", Trigger: "periodic", Start: at(time.Hour), Error: "vault root is missing"},
		{ID: "3", Vault: "Café", Trigger: "watch", Paths: 1, Start: at(2 * time.Hour), Failed: 1},
		{ID: "2", Vault: "notes", Trigger: "startup", Start: at(26 * time.Hour), Indexed: 6571, Unchanged: 12, Failed: 3},
		// An end before the start (a clock step) shows as 0s.
		{ID: "1", Vault: "notes", Trigger: "manual", Start: at(27 * time.Hour), Unchanged: 6571},
	}
	runs[1].End = end(runs[1].Start, 230*time.Millisecond)
	runs[2].End = end(runs[2].Start, 4*time.Millisecond)
	runs[3].End = end(runs[3].Start, 1234*time.Millisecond)
	runs[4].End = end(runs[4].Start, 83*time.Second)
	runs[5].End = end(runs[5].Start, -time.Second)
	return runs
}

func TestPrintRunsGolden(t *testing.T) {
	tests := []struct {
		name string
		runs []ipc.Run
	}{
		{"runs.golden", sampleRuns()},
		{"runs-empty.golden", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			printRuns(&b, tt.runs, time.UTC)
			golden(t, tt.name, b.Bytes())
		})
	}
}

func TestPrintRunsLocalTime(t *testing.T) {
	var b bytes.Buffer
	printRuns(&b, sampleRuns()[:1], time.FixedZone("X", 2*3600))
	if !strings.Contains(b.String(), "2025-03-01 13:59:58  notes") {
		t.Errorf("start time not shown in the given zone:\n%s", b.String())
	}
}

func TestRunRuns(t *testing.T) {
	isolate(t)
	f := &fakeBackend{runs: sampleRuns()}
	sock := serveFake(t, f)

	code, stdout, stderr := runCmd(t, "-socket", sock, "runs", "-n", "4")
	if code != exitOK {
		t.Fatalf("exit %d; stderr %q", code, stderr)
	}
	var want bytes.Buffer
	printRuns(&want, sampleRuns()[:4], time.Local)
	if stdout != want.String() {
		t.Errorf("stdout differs from printRuns:\n%s\nwant\n%s", stdout, want.String())
	}
	f.mu.Lock()
	limit := f.runLimit
	f.mu.Unlock()
	if limit != 4 {
		t.Errorf("daemon got limit %d, want 4", limit)
	}

	code, stdout, _ = runCmd(t, "-socket", sock, "runs", "-json")
	var resp ipc.RunsResponse
	if err := json.Unmarshal([]byte(stdout), &resp); code != exitOK || err != nil {
		t.Fatalf("runs -json: exit %d, %v\n%s", code, err, stdout)
	}
	if len(resp.Runs) != len(sampleRuns()) || resp.Runs[1].Vault != "notes" || resp.Runs[1].Paths != 3 || resp.Runs[0].End != nil {
		t.Errorf("runs -json = %+v", resp.Runs)
	}
	f.mu.Lock()
	limit = f.runLimit
	f.mu.Unlock()
	if limit != 20 {
		t.Errorf("default limit %d, want 20", limit)
	}

	// No runs: a sentence, and an empty JSON array rather than null.
	empty := serveFake(t, &fakeBackend{})
	if code, stdout, _ := runCmd(t, "-socket", empty, "runs"); code != exitOK || stdout != "no ingestion runs recorded yet\n" {
		t.Errorf("no runs: exit %d, %q", code, stdout)
	}
	if code, stdout, _ := runCmd(t, "-socket", empty, "runs", "-json"); code != exitOK || !strings.Contains(stdout, `"runs": []`) {
		t.Errorf("no runs -json: exit %d, %q", code, stdout)
	}
}
