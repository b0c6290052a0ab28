package query

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The -update flag rewrites the goldens under testdata/contextblock. It is
// registered here unless another test file of the package already did.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite testdata goldens")
	}
}

func updatingGoldens() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// note is a fixture file: its lines, numbered from 1.
type note struct {
	vault, path string
	lines       []string
}

func newNote(vault, path, text string) note {
	return note{vault: vault, path: path, lines: strings.Split(strings.TrimSuffix(text, "\n"), "\n")}
}

// hit quotes lines start..end of n, the way the index cites a chunk.
func (n note) hit(start, end int, heading string, score float64) ContextHit {
	return ContextHit{Vault: n.vault, Path: n.path, AbsPath: "/home/me/" + n.vault + "/" + n.path,
		LineStart: start, LineEnd: end, Heading: heading, Score: score,
		Text: strings.Join(n.lines[start-1:end], "\n") + "\n"}
}

var restic = newNote("notes", "homelab/Restic Backups.md", `# Restic Backups

Nightly backups of the NAS go to a B2 bucket with restic.

## Repository

The repository lives at b2:nas-backup:/restic.
The password is in the password manager under "restic nas".

## Retention policy

We keep 7 daily, 5 weekly and 12 monthly snapshots.
Run forget with --prune once a week, on Sunday.
Yearly snapshots are kept forever.

## Restore drill

Every quarter, restore one folder to a spare disk and diff it.
Write the result in the drill log.
`)

var ragdNote = newNote("work", "projects/ragd.md", `# ragd

A local retrieval daemon for note vaults.

## Backups

The index is rebuilt from the vault; back up the vault, not the index.
Restic covers the vault (see Restic Backups).
`)

func TestBuildContextGolden(t *testing.T) {
	const (
		hRestic = "Restic Backups"
		hRepo   = "Restic Backups > Repository"
		hRet    = "Restic Backups > Retention policy"
		hDrill  = "Restic Backups > Restore drill"
	)
	staleHit := restic.hit(11, 15, hRet, 2)
	staleHit.Stale = true
	tests := []struct {
		name string
		hits []ContextHit
		opt  ContextOptions
	}{
		{"empty", nil, ContextOptions{}},
		{"merge_overlap", []ContextHit{
			restic.hit(11, 14, hRet, 0.9),
			restic.hit(13, 16, hRet, 0.5),
			restic.hit(11, 14, hRet, 0.4), // the same chunk twice
			restic.hit(12, 13, hRet, 0.3), // inside the others
		}, ContextOptions{}},
		{"adjacent", []ContextHit{
			restic.hit(5, 8, hRepo, 0.7),
			restic.hit(1, 4, hRestic, 0.2),
			restic.hit(10, 13, hRet, 0.5), // line 9 is a gap: a range of its own
		}, ContextOptions{}},
		{"two_files", []ContextHit{
			restic.hit(16, 19, hDrill, 0.4),
			ragdNote.hit(5, 8, "ragd > Backups", 0.8),
			restic.hit(10, 15, hRet, 0.6),
			ragdNote.hit(1, 3, "ragd", 0.1),
		}, ContextOptions{}},
		{"budget_cut", []ContextHit{
			restic.hit(10, 15, hRet, 0.9),  // 156 characters: fits
			restic.hit(1, 8, hRestic, 0.5), // 199 characters: cut to lines 1-7 (139)
			ragdNote.hit(1, 3, "ragd", 0.1),
		}, ContextOptions{Budget: 300}},
		{"budget_stop", []ContextHit{
			restic.hit(10, 15, hRet, 0.9),
			restic.hit(1, 8, hRestic, 0.5), // only lines 1-2 would fit: stop
			ragdNote.hit(1, 3, "ragd", 0.1),
		}, ContextOptions{Budget: 180}},
		{"budget_cut_at_best_hit", []ContextHit{
			restic.hit(1, 8, hRestic, 0.2),
			restic.hit(9, 15, hRet, 0.9), // merged with 1-8; the cut keeps the lines from here
		}, ContextOptions{Budget: 200}},
		{"summary", []ContextHit{
			restic.hit(10, 15, hRet, 0.9),
			restic.hit(16, 19, hDrill, 0.3),
			ragdNote.hit(7, 7, "ragd > Backups", 0.5),
		}, ContextOptions{Style: StyleSummary}},
		{"summary_preview_3", []ContextHit{
			restic.hit(10, 15, hRet, 0.9),
		}, ContextOptions{Style: StyleSummary, PreviewLines: 3}},
		{"stale", []ContextHit{
			staleHit,
			restic.hit(18, 19, hDrill, 1), // same file: stale too
			ragdNote.hit(5, 8, "ragd > Backups", 0.5),
		}, ContextOptions{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := renderContext(tc.opt, BuildContext(tc.hits, tc.opt))
			golden := filepath.Join("testdata", "contextblock", tc.name+".golden")
			if updatingGoldens() {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the golden (run with -update to accept):\n--- got\n%s--- want\n%s", golden, got, want)
			}
			checkBlock(t, tc.hits, tc.opt, BuildContext(tc.hits, tc.opt))
		})
	}
}

// renderContext prints a block with its citations for a golden file.
func renderContext(opt ContextOptions, cb ContextBlock) string {
	var b strings.Builder
	fmt.Fprintf(&b, "== options: budget=%d style=%q preview=%d\n", opt.Budget, opt.Style, opt.PreviewLines)
	fmt.Fprintf(&b, "== truncated: %v\n", cb.Truncated)
	fmt.Fprintf(&b, "== citations: %d\n", len(cb.Citations))
	for i, c := range cb.Citations {
		fmt.Fprintf(&b, "[%d] %s vault=%s abs=%s L%d-L%d heading=%q score=%g stale=%v\n",
			i+1, c.Cite, c.Vault, c.AbsPath, c.LineStart, c.LineEnd, c.Heading, c.Score, c.Stale)
	}
	fmt.Fprintf(&b, "== block: %d bytes\n", len(cb.Text))
	b.WriteString(cb.Text)
	return b.String()
}

func TestBuildContextOrderAndScores(t *testing.T) {
	a := newNote("v", "a.md", "1\n2\n3\n4\n5\n6\n7\n8\n9\n")
	b := newNote("v", "b.md", "1\n2\n3\n")
	cb := BuildContext([]ContextHit{
		a.hit(7, 8, "A2", 0.1),
		b.hit(1, 2, "B", 0.5),
		a.hit(1, 2, "A1", 0.3),
		a.hit(2, 3, "A1b", 0.9), // merges with 1-2; the best hit of a.md
		b.hit(3, 3, "B", 0.5),   // adjacent to b's 1-2
	}, ContextOptions{})
	var got []string
	for _, c := range cb.Citations {
		got = append(got, fmt.Sprintf("%s %s %g", c.Cite, c.Heading, c.Score))
	}
	want := []string{"a.md:L1-L3 A1 0.9", "a.md:L7-L8 A2 0.1", "b.md:L1-L3 B 0.5"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("citations\n got %q\nwant %q", got, want)
	}

	// Equal scores keep the files in input order.
	cb = BuildContext([]ContextHit{b.hit(1, 1, "", 1), a.hit(1, 1, "", 1)}, ContextOptions{})
	if cb.Citations[0].Path != "b.md" || cb.Citations[1].Path != "a.md" {
		t.Errorf("ties: got %s then %s, want b.md then a.md", cb.Citations[0].Path, cb.Citations[1].Path)
	}
}

func TestBuildContextLineEdges(t *testing.T) {
	n := newNote("v", "n.md", "one\n\ntwo\n\nthree\n")
	tests := []struct {
		name  string
		hits  []ContextHit
		cite  string
		lines string
	}{
		{"final newline", []ContextHit{{LineStart: 1, LineEnd: 1, Text: "one\n"}}, "n.md:L1-L1", "one\n"},
		// "two\n" for L3-L4 is line 3 and the empty line 4: the range
		// reaches line 5 without a gap.
		{"final empty line without newline", []ContextHit{
			{LineStart: 3, LineEnd: 4, Text: "two\n"}, {LineStart: 5, LineEnd: 5, Text: "three"},
		}, "n.md:L3-L5", "two\n\nthree\n"},
		{"final empty line with newline", []ContextHit{
			{LineStart: 3, LineEnd: 4, Text: "two\n\n"}, {LineStart: 5, LineEnd: 5, Text: "three"},
		}, "n.md:L3-L5", "two\n\nthree\n"},
		{"edge blank lines trimmed", []ContextHit{{LineStart: 2, LineEnd: 4, Text: "\ntwo\n\n"}}, "n.md:L3-L3", "two\n"},
		{"crlf", []ContextHit{{LineStart: 1, LineEnd: 3, Text: "one\r\n\r\ntwo\r\n"}}, "n.md:L1-L3", "one\n\ntwo\n"},
		// A hit whose text disagrees with its range is numbered by its text.
		{"text shorter than range", []ContextHit{{LineStart: 3, LineEnd: 9, Text: "two\n\nthree"}}, "n.md:L3-L5", "two\n\nthree\n"},
	}
	for _, tc := range tests {
		for i := range tc.hits {
			tc.hits[i].Vault, tc.hits[i].Path = n.vault, n.path
		}
		cb := BuildContext(tc.hits, ContextOptions{})
		if len(cb.Citations) != 1 || cb.Citations[0].Cite != tc.cite {
			t.Errorf("%s: citations %+v, want one %s", tc.name, cb.Citations, tc.cite)
			continue
		}
		want := "<retrieved-context>\n[1] " + tc.cite + "\n" + tc.lines + "</retrieved-context>\n"
		if cb.Text != want {
			t.Errorf("%s: block\n%q\nwant\n%q", tc.name, cb.Text, want)
		}
	}

	// Blank lines alone make no entry.
	if cb := BuildContext([]ContextHit{{Path: "n.md", LineStart: 2, LineEnd: 2, Text: " \t"}}, ContextOptions{}); cb.Text != "" || cb.Truncated {
		t.Errorf("blank hit: %+v", cb)
	}
	// Hits without a valid first line are ignored.
	if cb := BuildContext([]ContextHit{{Path: "x.md", LineStart: 0, LineEnd: 1, Text: "x"}}, ContextOptions{}); cb.Text != "" || cb.Truncated {
		t.Errorf("invalid hit: %+v", cb)
	}
}

func TestBuildContextPartialLines(t *testing.T) {
	// Chunks cut inside a line quote part of it; the line that contains
	// the other wins, whatever the scores, and nothing is spliced.
	hits := []ContextHit{
		{Path: "p.md", LineStart: 3, LineEnd: 4, Text: "the second half.\nnext line", Score: 2},
		{Path: "p.md", LineStart: 2, LineEnd: 3, Text: "before\nA long line, the second half.", Score: 1},
		{Path: "p.md", LineStart: 4, LineEnd: 4, Text: "different text", Score: 1},
	}
	cb := BuildContext(hits, ContextOptions{})
	want := "<retrieved-context>\n[1] p.md:L2-L4\nbefore\nA long line, the second half.\nnext line\n</retrieved-context>\n"
	if cb.Text != want {
		t.Errorf("block\n%s\nwant\n%s", cb.Text, want)
	}
}

func TestBuildContextBudgetCountsRunes(t *testing.T) {
	n := newNote("v", "u.md", "日本語\nüber\nabc\n")
	// 4 + 5 + 4 = 13 characters with newlines, far more bytes.
	cb := BuildContext([]ContextHit{n.hit(1, 3, "", 1)}, ContextOptions{Budget: 13})
	if cb.Truncated || len(cb.Citations) != 1 || cb.Citations[0].LineEnd != 3 {
		t.Errorf("budget 13: truncated=%v citations=%+v", cb.Truncated, cb.Citations)
	}
	cb = BuildContext([]ContextHit{n.hit(1, 3, "", 1)}, ContextOptions{Budget: 12})
	if !cb.Truncated || len(cb.Citations) != 1 || cb.Citations[0].Cite != "u.md:L1-L2" {
		t.Errorf("budget 12: truncated=%v citations=%+v", cb.Truncated, cb.Citations)
	}
	// Nothing fits: no block, but truncated.
	cb = BuildContext([]ContextHit{n.hit(1, 1, "", 1)}, ContextOptions{Budget: 3})
	if !cb.Truncated || cb.Text != "" || len(cb.Citations) != 0 {
		t.Errorf("budget 3: %+v", cb)
	}
}

func TestBuildContextHeaderStaysOneLine(t *testing.T) {
	cb := BuildContext([]ContextHit{{Path: "odd\nname.md", LineStart: 1, LineEnd: 1, Text: "x", Heading: "A\n> B"}}, ContextOptions{})
	want := "<retrieved-context>\n[1] odd name.md:L1-L1 — A > B\nx\n</retrieved-context>\n"
	if cb.Text != want {
		t.Errorf("block %q, want %q", cb.Text, want)
	}
}
