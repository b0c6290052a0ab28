package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

// indexingStatus is sampleStatus while a watch pass runs in notes.
func indexingStatus() *ipc.StatusResponse {
	st := sampleStatus()
	st.State = ipc.StateIndexing
	st.Progress = &ipc.Progress{Vault: "notes", Trigger: "watch", Total: 6571, Done: 1200, Rate: 412.3, ETASeconds: 13.02}
	return st
}

func TestPlainStatusLineGolden(t *testing.T) {
	withRate := indexingStatus()

	everything := indexingStatus()
	everything.Progress = &ipc.Progress{Trigger: "startup", Done: 0}

	slow := indexingStatus()
	slow.Progress = &ipc.Progress{Vault: "notes", Trigger: "manual", Total: 1000, Done: 687, Rate: 2.5, ETASeconds: 125}
	slow.Vaults[0].Queued, slow.Vaults[2].Queued = 1, 1

	queued := sampleStatus()
	queued.State = ipc.StateIndexing
	queued.Vaults[2].Queued = 1

	starting := sampleStatus()
	starting.State = ipc.StateIndexing

	noVaults := sampleStatus()
	noVaults.Vaults = nil

	var b strings.Builder
	for _, st := range []*ipc.StatusResponse{withRate, everything, slow, queued, starting, sampleStatus(), noVaults} {
		b.WriteString(plainStatusLine(st) + "\n")
	}
	golden(t, "status-watch-plain.golden", []byte(b.String()))

	if got, want := plainStatusLine(withRate), "indexing notes: 1200/6571 files (412/s, ETA 13s)"; got != want {
		t.Errorf("plainStatusLine = %q, want %q", got, want)
	}
}

func TestPlainViewPrintsChangesAtMostOncePerSecond(t *testing.T) {
	var b bytes.Buffer
	v := &plainView{w: &b, every: time.Second}
	idle := sampleStatus()
	busy := indexingStatus()
	busier := indexingStatus()
	busier.Progress.Done = 2400
	steps := []struct {
		ms  int
		st  *ipc.StatusResponse
		err error
	}{
		{0, idle, nil},      // printed: the first state
		{250, idle, nil},    // unchanged
		{500, busy, nil},    // changed, but too soon
		{1000, busy, nil},   // printed: a second since the last line
		{1250, busier, nil}, // too soon
		{1500, busy, nil},   // same as the last line printed
		{2500, busy, nil},   // still the same
		{2750, nil, errors.New("ragd is not running")}, // printed
		{3000, idle, nil}, // too soon
		{3750, idle, nil}, // printed
	}
	for _, s := range steps {
		v.show(s.st, s.err, testNow.Add(time.Duration(s.ms)*time.Millisecond))
	}
	want := "idle: notes 1234 docs, 3 failed; usb 7 docs, 0 failed (offline); new 0 docs, 0 failed\n" +
		"indexing notes: 1200/6571 files (412/s, ETA 13s)\n" +
		"error: ragd is not running\n" +
		"idle: notes 1234 docs, 3 failed; usb 7 docs, 0 failed (offline); new 0 docs, 0 failed\n"
	if b.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", b.String(), want)
	}
}

func TestWatchFrameGolden(t *testing.T) {
	queued := sampleStatus()
	queued.State = ipc.StateIndexing
	queued.Vaults[0].Queued = 2

	tests := []struct {
		name string
		st   *ipc.StatusResponse
	}{
		{"status-watch-tty.golden", indexingStatus()},
		{"status-watch-tty-queued.golden", queued},
		{"status-watch-tty-idle.golden", sampleStatus()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			watchFrame(&b, tt.st, testNow)
			golden(t, tt.name, b.Bytes())
		})
	}
}

func TestTTYViewRedrawsInPlace(t *testing.T) {
	var b bytes.Buffer
	v := &ttyView{w: &b}
	v.show(sampleStatus(), nil, testNow)
	first := b.String()
	if !strings.HasPrefix(first, ansiHome+ansiClear+"ragd v0.1.0") || !strings.HasSuffix(first, ansiEraseLine+"\n"+ansiEraseBelow) {
		t.Errorf("first frame does not clear the screen and erase below:\n%q", first)
	}
	if n, lines := strings.Count(first, ansiEraseLine+"\n"), strings.Count(first, "\n"); n != lines {
		t.Errorf("%d of %d lines end with an erase-line sequence", n, lines)
	}

	b.Reset()
	v.show(sampleStatus(), nil, testNow)
	if b.Len() != 0 {
		t.Errorf("an unchanged frame was redrawn: %q", b.String())
	}

	v.show(indexingStatus(), nil, testNow)
	if s := b.String(); !strings.HasPrefix(s, ansiHome+"ragd v0.1.0") || strings.Contains(s, ansiClear) ||
		!strings.Contains(s, "indexing notes (watch)"+ansiEraseLine+"\n[#####") {
		t.Errorf("second frame:\n%q", s)
	}

	b.Reset()
	v.show(nil, errors.New("ragd is not running"), testNow)
	if s := b.String(); s != ansiHome+"ragctl: ragd is not running"+ansiEraseLine+"\nretrying…"+ansiEraseLine+"\n"+ansiEraseBelow {
		t.Errorf("error frame: %q", s)
	}
}

func TestRunStatusWatch(t *testing.T) {
	isolate(t)
	idle := sampleStatus()
	f := &fakeBackend{statuses: []*ipc.StatusResponse{indexingStatus(), indexingStatus(), idle}}
	sock := serveFake(t, f)

	// Off a terminal: plain lines, the second one a second after the first.
	want := "indexing notes: 1200/6571 files (412/s, ETA 13s)\n" + plainStatusLine(idle) + "\n"
	start := time.Now()
	code, stdout, stderr := runCmdUntil(t, false, func(out string) bool { return strings.Contains(out, "idle:") },
		"-socket", sock, "status", "-watch")
	if code != exitOK || stdout != want || stderr != "" {
		t.Errorf("status -watch: exit %d, stderr %q, stdout\n%q\nwant\n%q", code, stderr, stdout, want)
	}
	if took := time.Since(start); took < 900*time.Millisecond {
		t.Errorf("two lines within %v: not rate-limited", took)
	}

	// On a terminal: frames drawn in place.
	f.mu.Lock()
	f.statuses = []*ipc.StatusResponse{indexingStatus()}
	f.mu.Unlock()
	code, stdout, _ = runCmdUntil(t, true, func(out string) bool { return strings.Contains(out, "ETA 13s") },
		"-socket", sock, "status", "-watch")
	if code != exitOK || !strings.HasPrefix(stdout, ansiHome+ansiClear) ||
		!strings.Contains(stdout, "[#####.........................]  1200/6571 files  412/s  ETA 13s"+ansiEraseLine) {
		t.Errorf("status -watch on a terminal: exit %d\n%q", code, stdout)
	}
}

func TestRunReindexWaitTTY(t *testing.T) {
	isolate(t)
	f := &fakeBackend{reindexDelay: 700 * time.Millisecond, statuses: []*ipc.StatusResponse{indexingStatus()}}
	sock := serveFake(t, f)
	result := "notes: 3 indexed, 10 unchanged, 0 removed, 0 failed\n"

	// On a terminal the bar is drawn on one line, then erased.
	code, stdout, stderr := runCmdUntil(t, true, nil, "-socket", sock, "reindex", "-wait")
	bar := "\rnotes  [###.................]  1200/6571 files  412/s  ETA 13s" + ansiEraseLine
	if code != exitOK || stdout != bar+"\r"+ansiEraseLine+result {
		t.Errorf("reindex -wait on a terminal: exit %d, stderr %q\n%q", code, stderr, stdout)
	}

	// Off a terminal nothing but the result.
	code, stdout, _ = runCmd(t, "-socket", sock, "reindex", "-wait")
	if code != exitOK || stdout != result {
		t.Errorf("reindex -wait: exit %d, %q", code, stdout)
	}

	// Without -wait there is nothing to show progress for.
	code, stdout, _ = runCmdUntil(t, true, nil, "-socket", sock, "reindex")
	if code != exitOK || strings.Contains(stdout, "\x1b") {
		t.Errorf("reindex on a terminal: exit %d, %q", code, stdout)
	}
}

// Indexing done but vectors pending is not idle: every view says so.
func TestEmbeddingBacklogViews(t *testing.T) {
	st := sampleStatus()
	st.State = ipc.StateEmbedding
	st.Vector.Pending = 22000
	st.Vector.LastError = "uselite: model not found"
	want := "embedding: 22000 chunks waiting for vectors (paused: uselite: model not found)"
	if got := plainStatusLine(st); got != want {
		t.Errorf("plain line %q, want %q", got, want)
	}
	var b strings.Builder
	watchFrame(&b, st, testNow)
	if !strings.Contains(b.String(), ": embedding, 22000 chunks waiting for vectors\n"+want+"\n") {
		t.Errorf("frame:\n%s", b.String())
	}
}
