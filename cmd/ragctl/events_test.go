package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

// sampleEvents is one of each event type, plus one this ragctl does not know.
func sampleEvents() []ipc.Event {
	at := func(s int) time.Time { return testNow.Add(time.Duration(s) * time.Second) }
	started := ipc.Run{ID: "r1", Vault: "notes", Trigger: "watch", Paths: 3, Start: at(0)}
	finished := started
	finished.End = new(at(1).Add(200 * time.Millisecond))
	finished.Indexed, finished.Removed, finished.Failed = 1, 1, 1
	whole := ipc.Run{ID: "r2", Vault: "usb", Trigger: "startup", Start: at(2)}
	broken := whole
	broken.End = new(at(2).Add(3 * time.Millisecond))
	broken.Error = "vault root is missing"
	return []ipc.Event{
		{Type: ipc.EventRunStarted, Time: at(0), Vault: "notes", Run: &started},
		{Type: ipc.EventIndexed, Time: at(1), Vault: "notes", Path: "Restic Backups.md"},
		{Type: ipc.EventRemoved, Time: at(1), Vault: "notes", Path: "old/Gone.md"},
		{Type: ipc.EventFailed, Time: at(1), Vault: "notes", Path: "big.md", Error: "file is 80 MB, over max_file_mb 50"},
		{Type: ipc.EventRunFinished, Time: at(1), Vault: "notes", Run: &finished},
		{Type: ipc.EventRunStarted, Time: at(2), Vault: "usb", Run: &whole},
		{Type: ipc.EventRunFinished, Time: at(2), Vault: "usb", Run: &broken, Error: broken.Error},
		{Type: ipc.EventRunFinished, Time: at(3), Vault: "usb"}, // no run record
		{Type: ipc.EventLagged, Time: at(4)},
		{Type: "renamed", Time: at(5), Vault: "notes", Path: "Ünïcode/Café.md"},
	}
}

func TestFormatEventGolden(t *testing.T) {
	var b strings.Builder
	for _, ev := range sampleEvents() {
		b.WriteString(formatEvent(ev, time.UTC) + "\n")
	}
	golden(t, "events.golden", []byte(b.String()))

	ev := ipc.Event{Type: ipc.EventIndexed, Time: testNow, Vault: "notes", Path: "Restic Backups.md"}
	if got, want := formatEvent(ev, time.FixedZone("X", -3600)), "11:00:00 indexed notes/Restic Backups.md"; got != want {
		t.Errorf("formatEvent = %q, want %q (the time in the given zone)", got, want)
	}
}

// eventLines is the text ragctl events prints for evs.
func eventLines(evs []ipc.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		b.WriteString(formatEvent(ev, time.Local) + "\n")
	}
	return b.String()
}

func TestRunEvents(t *testing.T) {
	isolate(t)
	evs := sampleEvents()
	want := eventLines(evs)

	// Interrupted while following: exit 0.
	sock := serveFake(t, &fakeBackend{events: evs})
	code, stdout, stderr := runCmdUntil(t, false, func(out string) bool { return out == want }, "-socket", sock, "events")
	if code != exitOK || stdout != want || stderr != "" {
		t.Errorf("events: exit %d, stderr %q, stdout\n%s\nwant\n%s", code, stderr, stdout, want)
	}

	// -json: one JSON object per line, the events as sent.
	code, stdout, _ = runCmdUntil(t, false, func(out string) bool { return strings.Count(out, "\n") == len(evs) },
		"-socket", sock, "events", "-json")
	if code != exitOK {
		t.Errorf("events -json: exit %d", code)
	}
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if len(lines) != len(evs) {
		t.Fatalf("events -json printed %d lines, want %d:\n%s", len(lines), len(evs), stdout)
	}
	for i, line := range lines {
		var ev ipc.Event
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Errorf("line %d is not JSON: %v: %q", i+1, err, line)
			continue
		}
		if ev.Type != evs[i].Type || !ev.Time.Equal(evs[i].Time) || ev.Path != evs[i].Path || (ev.Run == nil) != (evs[i].Run == nil) {
			t.Errorf("line %d = %+v, want %+v", i+1, ev, evs[i])
		}
	}

	// The daemon ends the stream (it is shutting down): exit 1, said on stderr.
	closing := serveFake(t, &fakeBackend{events: evs[:2], closeEvents: true})
	code, stdout, stderr = runCmd(t, "-socket", closing, "events")
	if code != exitFail || stdout != eventLines(evs[:2]) || !strings.Contains(stderr, "ragd closed the event stream") {
		t.Errorf("closed stream: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
