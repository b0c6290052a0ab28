package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragd/ragd/ipc"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden with the current output")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

var testNow = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func ago(d time.Duration) *time.Time {
	t := testNow.Add(-d)
	return &t
}

func sampleResults() []ipc.Result {
	return []ipc.Result{
		{
			ID: "c1", Vault: "notes", Path: "Restic Backups.md", Title: "Restic Backups",
			LineStart: 12, LineEnd: 20, Heading: "Restic Backups > Retention", Score: 7.12345,
			Text: "Keep 7 daily,\n4 weekly and   12 monthly snapshots:\n\n    restic forget --keep-daily 7",
		},
		{
			// No heading: the title is shown instead.
			ID: "c2", Vault: "journal", Path: "2024/2024-03-14.md", Title: "2024-03-14",
			LineStart: 1, LineEnd: 4, Score: 3.5, Text: "Nightly backup failed: repository locked. Ran `restic unlock`.",
		},
		{
			// Neither heading nor title nor text (a NoText search).
			ID: "c3", Vault: "notes", Path: "ZFS Pool.md", LineStart: 40, LineEnd: 41, Score: 0.0004,
		},
		{
			// Text longer than the snippet, with multi-byte runes.
			ID: "c4", Vault: "notes", Path: "Ünïcode/Café.md", Title: "Café", Heading: "Café > Crème brûlée",
			LineStart: 100, LineEnd: 180, Score: 12,
			Text: strings.Repeat("Crème brûlée — ", 20),
		},
	}
}

func TestPrintResultsGolden(t *testing.T) {
	tests := []struct {
		name string
		resp *ipc.SearchResponse
	}{
		{"results.golden", &ipc.SearchResponse{Query: "restic retention", Results: sampleResults(), TookMS: 1.5}},
		{"results-empty.golden", &ipc.SearchResponse{Query: `no "such" thing`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			printResults(&b, tt.resp)
			golden(t, tt.name, b.Bytes())
		})
	}
}

func sampleStatus() *ipc.StatusResponse {
	return &ipc.StatusResponse{
		State: ipc.StateIdle, Version: "v0.1.0", Protocol: ipc.ProtocolVersion, PID: 4242,
		StartedAt: testNow.Add(-(3*time.Hour + 25*time.Minute + 7*time.Second + 400*time.Millisecond)),
		Config:    "/home/u/.config/ragd/ragd.toml",
		DataDir:   "/home/u/.local/share/ragd",
		Socket:    "/run/user/1000/ragd/ragd.sock",
		Semantic:  "off (lexical BM25 only)",
		Graph:     &ipc.GraphStatus{Notes: 12, Tags: 9, Relations: 40, Unresolved: 1, Consistent: true},
		Vector:    &ipc.VectorStatus{Embedder: "embed", Vectors: 5000, Index: "hnsw"},
		Plugins: []ipc.PluginStatus{{Name: "pdf", Kind: "extractor", State: ipc.PluginRunning},
			{Name: "embed", Kind: "embedder", State: ipc.PluginRunning}, {Name: "heuristic", Kind: "reranker", State: ipc.PluginIdle}},
		Vaults: []ipc.VaultStatus{
			{
				Name: "notes", Path: "/home/u/notes", Online: true, Documents: 1234, Chunks: 56789, Failed: 3,
				FailedFiles:   []ipc.FailedFile{{Path: "big.md", Error: "file is 80 MB, over max_file_mb 50"}},
				LastReconcile: ago(90 * time.Second), Watching: "watching",
			},
			{
				Name: "usb", Path: "/media/usb/vault", Online: false, Documents: 7, Chunks: 20,
				LastReconcile: ago(48 * time.Hour), LastError: "vault root is missing", Watching: "offline",
			},
			{Name: "new", Path: "/home/u/new", Online: true, Watching: "polling"},
		},
	}
}

func TestPrintStatusGolden(t *testing.T) {
	indexing := sampleStatus()
	indexing.State = ipc.StateIndexing
	indexing.Config = ""
	indexing.Progress = &ipc.Progress{Vault: "notes", Total: 120, Done: 45}
	indexing.Vaults = indexing.Vaults[:1]
	indexing.Vaults[0].Failed = 1
	indexing.Vaults[0].Queued = 2
	indexing.Vaults[0].Watching = "off"

	// A daemon that does not report watch modes shows "-".
	old := sampleStatus()
	old.Vaults = old.Vaults[2:]
	old.Vaults[0].Watching = ""

	empty := sampleStatus()
	empty.Vaults = nil

	tests := []struct {
		name string
		st   *ipc.StatusResponse
	}{
		{"status.golden", sampleStatus()},
		{"status-indexing.golden", indexing},
		{"status-no-vaults.golden", empty},
		{"status-no-watching.golden", old},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			printStatus(&b, tt.st, testNow)
			golden(t, tt.name, b.Bytes())
		})
	}
}

func TestSnippet(t *testing.T) {
	tests := []struct {
		text string
		n    int
		want string
	}{
		{"", 10, ""},
		{"  \n\t ", 10, ""},
		{"a\n\nb   c", 10, "a b c"},
		{"abcdef", 6, "abcdef"},
		{"abcdefghi", 8, "abcdefg…"},
		{"éééééééééé", 8, "ééééééé…"},
	}
	for _, tt := range tests {
		if got := snippetLine(tt.text, nil, tt.n, palette{}); got != tt.want {
			t.Errorf("snippet(%q, %d) = %q, want %q", tt.text, tt.n, got, tt.want)
		}
	}
}

// Matched terms are bold on a terminal, the line fits the width, and a
// match beyond the width moves the window to it.
func TestSnippetLineMatchesAndWidth(t *testing.T) {
	on := palette{on: true}
	text := "Dial in the espresso grind: finer when the shot runs fast."
	m := [][2]int{{12, 20}} // "espresso"
	if got, want := snippetLine(text, m, 80, on), "Dial in the \x1b[1mespresso\x1b[0m grind: finer when the shot runs fast."; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := snippetLine(text, m, 80, palette{}), text; got != want {
		t.Errorf("NO_COLOR: got %q", got)
	}
	long := strings.Repeat("filler words here ", 20) + "the espresso shot"
	i := strings.Index(long, "espresso")
	got := snippetLine(long, [][2]int{{i, i + len("espresso")}}, 40, palette{})
	if utf8.RuneCountInString(got) > 40 || !strings.Contains(got, "espresso") || !strings.HasPrefix(got, "…") {
		t.Errorf("window %q (%d runes) does not show the match", got, utf8.RuneCountInString(got))
	}
}

// Results fit the terminal: no line over its width, at 80 columns too.
func TestResultsFitTheWidth(t *testing.T) {
	rs := sampleResults()
	rs[0].Text = strings.Repeat("a long line of note text ", 30)
	rs[0].Heading = strings.Repeat("Heading > ", 20)
	var b bytes.Buffer
	printResultsColored(&b, &ipc.SearchResponse{Query: "q", Results: rs}, palette{}, 80)
	for _, l := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
}
