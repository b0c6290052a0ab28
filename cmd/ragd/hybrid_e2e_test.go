package main

// End-to-end tests of retrieval through the real daemon: hybrid ranking
// with the offline embedder on the example vault, /v1/context, /v1/similar,
// stale citations and PDF pages. Each top-level test starts one daemon and
// runs its checks as subtests against it.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

// writeConfigTail writes a configuration with extra [daemon] keys, extra
// keys for the "notes" vault and a tail of further tables ([[plugin]],
// [search], more [[vault]]s). writeConfig cannot do this: its text goes
// after the [[vault]] table, where [daemon] keys cannot go.
func (e *testEnv) writeConfigTail(daemonExtra, vaultExtra, tail string) {
	e.t.Helper()
	cfg := fmt.Sprintf("[daemon]\nsocket = %q\ndata_dir = %q\nlog_level = \"debug\"\n%s\n\n[[vault]]\nname = \"notes\"\npath = %q\n%s\n%s",
		e.socket, e.data, daemonExtra, e.vault, vaultExtra, tail)
	if err := os.WriteFile(e.config, []byte(cfg), 0o600); err != nil {
		e.t.Fatal(err)
	}
}

// ragdEnv is ragd with variables added to the daemon's environment (which
// its plugins inherit). t.Setenv would do, but not in parallel tests.
func (e *testEnv) ragdEnv(env []string, args ...string) *daemonProc {
	e.t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "RAGD_TEST_MAIN=1"), env...)
	d := &daemonProc{cmd: cmd, out: &syncBuffer{}, done: make(chan struct{}), client: ipc.NewClient(e.socket)}
	cmd.Stdout, cmd.Stderr = d.out, d.out
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	go func() { d.err = cmd.Wait(); close(d.done) }()
	e.t.Cleanup(func() {
		d.client.Close()
		cmd.Process.Kill()
		<-d.done
		if e.t.Failed() {
			e.t.Logf("ragd output:\n%s", d.out.String())
		}
	})
	return d
}

// startEnv runs `ragd run` with env added and waits for the start-up pass.
func (e *testEnv) startEnv(env ...string) *daemonProc {
	e.t.Helper()
	d := e.ragdEnv(env, "run", "-config", e.config)
	d.waitIdle(e.t)
	return d
}

// poll calls cond every 20 ms until it holds, for up to timeout; it fails
// the test with what (and the daemon's output) if it never does, or at
// once if the daemon exits.
func (d *daemonProc) poll(t *testing.T, timeout time.Duration, what func() string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-d.done:
			t.Fatalf("ragd exited while waiting for %s: %v\n%s", what(), d.err, d.out.String())
		default:
		}
		if cond() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (d *daemonProc) status(t *testing.T) *ipc.StatusResponse {
	t.Helper()
	st, err := d.client.Status(context.Background())
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	return st
}

// waitVectors waits until the daemon is idle and every chunk has its
// vector.
func (d *daemonProc) waitVectors(t *testing.T) *ipc.StatusResponse {
	t.Helper()
	var st *ipc.StatusResponse
	d.poll(t, 3*time.Minute, func() string {
		if st == nil || st.Vector == nil {
			return "vector status"
		}
		return fmt.Sprintf("every chunk to be embedded (vector status %+v)", *st.Vector)
	}, func() bool {
		s, err := d.client.Status(context.Background())
		if err != nil {
			return false
		}
		st = s
		return s.State == ipc.StateIdle && reconciled(s) && s.Vector != nil && s.Vector.Pending == 0 && s.Vector.Vectors > 0
	})
	return st
}

// useliteModelDir returns the offline embedder's model directory at the
// repository root, skipping the test when `make models` has not fetched it
// (failing instead under RAGD_REQUIRE_MODELS=1).
func useliteModelDir(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(wd, "..", "..", "models", "use-lite")
	if _, err := os.Stat(filepath.Join(dir, "model.json")); err != nil {
		if os.Getenv("RAGD_REQUIRE_MODELS") == "1" {
			t.Fatalf("the uselite model is not in models/use-lite (%v): run make models", err)
		}
		t.Skip("the uselite model is not in models/use-lite: run `make models` to run this test (RAGD_REQUIRE_MODELS=1 makes this a failure)")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// sourceFile returns the path of a file of the repository, relative to
// this package's directory.
func sourceFile(parts ...string) string {
	return filepath.Join(append([]string{"..", ".."}, parts...)...)
}

// copyTree copies the regular files under src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if de.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !de.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// golden is one line of docs/example-vault-questions.tsv: a question and
// the files (any of them) that answer it.
type golden struct {
	question string
	want     []string
}

func readGolden(t *testing.T) []golden {
	t.Helper()
	f, err := os.Open(sourceFile("docs", "example-vault-questions.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []golden
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("questions file: no tab in %q", line)
		}
		out = append(out, golden{question: q, want: strings.Split(want, ";")})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatal("questions file is empty")
	}
	return out
}

// distinctPaths lists the distinct files of results, in rank order.
func distinctPaths(rs []ipc.Result) []string {
	var out []string
	for _, r := range rs {
		if !slices.Contains(out, r.Path) {
			out = append(out, r.Path)
		}
	}
	return out
}

// Notes for /v1/similar: A links to B, C shares A's title words, D is
// about the same subject (the night sky) without sharing a word with A.
const (
	simA = "Telescope Night.md"
	simB = "Eyepiece Notes.md"
	simC = "Telescope Night Maintenance.md"
	simD = "Stargazing.md"
)

var similarNotes = map[string]string{
	simA: "# Telescope Night\n\nSet up the reflector in the backyard after sunset. Saturn's rings and Jupiter's moons " +
		"were sharp at high magnification. Settings are in [[Eyepiece Notes]].\n",
	simB: "# Eyepiece Notes\n\nThe 10 mm eyepiece gives 120x with a focal length of 1200 mm; the 25 mm one is for wide views.\n",
	simC: "# Telescope Night Maintenance\n\nCollimate the primary mirror with a laser tool and keep the dust caps on.\n",
	simD: "# Stargazing\n\nFar from city lights, planets and galaxies show through binoculars: the Milky Way, " +
		"Andromeda and the Pleiades cluster on a clear, dark evening.\n",
}

// TestHybridUseliteRankingGoldenAndSimilar indexes a copy of the example
// vault with the offline embedder and checks the hybrid ranking against
// docs/example-vault-questions.tsv, the lexical and vector modes, explain,
// and the vector side of /v1/similar.
func TestHybridUseliteRankingGoldenAndSimilar(t *testing.T) {
	t.Parallel()
	models := useliteModelDir(t)
	e := newEnv(t, nil)
	copyTree(t, sourceFile("docs", "example-vault"), e.vault)
	simVault := filepath.Join(e.root, "sim")
	if err := os.MkdirAll(simVault, 0o755); err != nil {
		t.Fatal(err)
	}
	for rel, body := range similarNotes {
		if err := os.WriteFile(filepath.Join(simVault, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e.writeConfigTail("", "", fmt.Sprintf(`
[[vault]]
name = "sim"
path = %q

[[plugin]]
name = "embed"
kind = "embedder"
builtin = "uselite"

[search]
embedder = "embed"
`, simVault))
	d := e.startEnv("RAGD_MODEL_DIR=" + models)
	st := d.waitVectors(t)
	if st.Vector.Embedder != "embed" || st.Vector.LastError != "" || !strings.HasPrefix(st.Semantic, "on") {
		t.Errorf("vector status = %+v, semantic %q", *st.Vector, st.Semantic)
	}
	ctx := context.Background()
	search := func(t *testing.T, req ipc.SearchRequest) *ipc.SearchResponse {
		t.Helper()
		req.Vaults, req.K = []string{"notes"}, 10
		resp, err := d.client.Search(ctx, req)
		if err != nil {
			t.Fatalf("search %+v: %v", req, err)
		}
		return resp
	}
	questions := readGolden(t)

	t.Run("golden-top3", func(t *testing.T) {
		var failed []string
		for _, g := range questions {
			resp := search(t, ipc.SearchRequest{Query: g.question, Mode: ipc.ModeHybrid})
			if len(resp.Degraded) > 0 {
				t.Errorf("%q: degraded %v", g.question, resp.Degraded)
			}
			// The top 3 files (a file's several chunks count once, as in
			// query/metrics), not the top 3 chunks.
			top := distinctPaths(resp.Results)
			top = top[:min(3, len(top))]
			if !slices.ContainsFunc(g.want, func(w string) bool { return slices.Contains(top, w) }) {
				failed = append(failed, fmt.Sprintf("  %q: want %s in the top 3, got %q", g.question, strings.Join(g.want, " or "), top))
			}
		}
		if len(failed) > 0 {
			t.Errorf("%d of %d questions miss their file in the hybrid top 3:\n%s", len(failed), len(questions), strings.Join(failed, "\n"))
		}
	})

	t.Run("modes", func(t *testing.T) {
		for _, mode := range []string{ipc.ModeLexical, ipc.ModeVector} {
			answered, right := 0, 0
			for _, g := range questions {
				resp := search(t, ipc.SearchRequest{Query: g.question, Mode: mode})
				if len(resp.Degraded) > 0 {
					t.Errorf("mode %s, %q: degraded %v", mode, g.question, resp.Degraded)
				}
				if len(resp.Results) == 0 {
					continue
				}
				answered++
				top := distinctPaths(resp.Results)
				if slices.ContainsFunc(g.want, func(w string) bool { return slices.Contains(top[:min(3, len(top))], w) }) {
					right++
				}
			}
			t.Logf("mode %s: %d of %d questions answered, %d with their file in the top 3", mode, answered, len(questions), right)
			switch {
			case mode == ipc.ModeLexical && answered != len(questions):
				// Every question shares words with its note.
				t.Errorf("mode lexical answered %d of %d questions", answered, len(questions))
			case answered < (len(questions)+1)/2:
				// The vector channel answers only above its calibrated
				// similarity floor, which some questions miss.
				t.Errorf("mode %s answered %d of %d questions", mode, answered, len(questions))
			case right*5 < answered*4:
				t.Errorf("mode %s: only %d of %d answers have their file in the top 3", mode, right, answered)
			}
		}
		if lex := search(t, ipc.SearchRequest{Query: "zxqv", Mode: ipc.ModeLexical}); len(lex.Results) != 0 || lex.Grounded {
			t.Errorf("mode lexical answered nonsense: %s", paths(lex.Results))
		}
	})

	t.Run("explain-vector-channel", func(t *testing.T) {
		seen := false
		for _, g := range questions {
			resp := search(t, ipc.SearchRequest{Query: g.question, Explain: true})
			for _, r := range resp.Results {
				if r.Explain == nil {
					t.Fatalf("%q: result without explain: %+v", g.question, r)
				}
				for _, c := range r.Explain.Channels {
					if c.Channel == "vector" && c.Rank > 0 {
						seen = true
					}
				}
			}
			if seen {
				break
			}
		}
		if !seen {
			t.Error("no hybrid result's explain shows the vector channel")
		}
	})

	t.Run("similar-vector", func(t *testing.T) {
		resp, err := d.client.Similar(ctx, ipc.SimilarRequest{Path: simA, K: 10})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Vault != "sim" || resp.Path != simA || len(resp.Degraded) != 0 {
			t.Errorf("similar answer %+v", resp)
		}
		why := map[string]string{}
		for _, n := range resp.Notes {
			if n.Vault == "sim" {
				why[n.Path] = n.Why
			}
			if n.Vault == "sim" && n.Path == simA {
				t.Errorf("the note itself is listed: %+v", n)
			}
		}
		t.Logf("similar to %s: %+v", simA, why)
		if !strings.Contains(why[simD], "vector") {
			t.Errorf("%s (related by meaning only) why = %q; notes %+v", simD, why[simD], resp.Notes)
		}
		if !strings.Contains(why[simB], "links") {
			t.Errorf("%s (linked) why = %q; notes %+v", simB, why[simB], resp.Notes)
		}
		if _, ok := why[simC]; !ok {
			t.Errorf("%s (same title words) missing; notes %+v", simC, resp.Notes)
		}
	})
	d.stop(t)
}

// Files of the lexical daemon's vault.
var lexicalNotes = map[string]string{
	"homelab/Restic Backups.md": `---
tags: [homelab, backup]
---
# Restic Backups

Nightly snapshots of the NAS go to two repositories.

## Retention policy

Keep 7 daily, 5 weekly and 12 monthly snapshots; prune on Sundays.
Old monthly snapshots are kept for a year.

## Restore drill

Once a quarter, restore one folder to /tmp and diff it.
`,
	"recipes/Sourdough.md": "# Sourdough starter\n\nFeed the starter at 100% hydration: equal weights of flour and water.\n\n" +
		"## Schedule\n\nDiscard half, feed, wait until it doubles, then bake.\n",
	"inbox.txt":        "Call the plumber about the dripping kitchen tap.\n\nRenew the passport before the Lisbon trip.\n",
	"stale/kettle.md":  "# Kettle\n\nDescale the kettle with citric acid every month.\n",
	"stale/teapot.md":  "# Teapot\n\nWarm the teapot before brewing oolong.\n",
	"stale/mug.md":     "# Mug\n\nThe blue mug holds hibiscus tea.\n",
	"stale/saucer.md":  "# Saucer\n\nThe saucer catches drips of rooibos.\n",
	"sim/" + simA:      similarNotes[simA],
	"sim/" + simB:      similarNotes[simB],
	"sim/" + simC:      similarNotes[simC],
	"sim/" + simD:      similarNotes[simD],
	"docs/placeholder": "", // not included: only .md, .txt, .pdf, ... are
}

// fileLines returns lines [from, to] (1-based, inclusive) of a file.
func fileLines(t *testing.T, abs string, from, to int) ([]string, bool) {
	t.Helper()
	b, err := os.ReadFile(abs)
	if err != nil {
		t.Fatal(err)
	}
	ls := strings.Split(string(b), "\n")
	if from < 1 || to > len(ls) || from > to {
		return nil, false
	}
	return ls[from-1 : to], true
}

// TestContextStaleSimilarPDFLexical runs one lexical-only daemon (no
// embedder, no watching, no periodic rescans) and checks /v1/context,
// /v1/similar without vectors, PDF pages and stale citations.
func TestContextStaleSimilarPDFLexical(t *testing.T) {
	t.Parallel()
	e := newEnv(t, lexicalNotes)
	pdf, err := os.ReadFile(sourceFile("plugins", "extract", "pdf", "testdata", "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	e.write("papers/report.pdf", string(pdf))
	e.writeConfigTail(`rescan_interval = 0`, "watch = false\n", "")
	d := e.start()
	ctx := context.Background()
	if v := d.status(t).Vaults[0]; v.Watching != "off" || v.Failed != 0 || v.Documents != 12 {
		t.Fatalf("vault status = %+v", v)
	}

	t.Run("context-grounded", func(t *testing.T) {
		resp, err := d.client.Context(ctx, ipc.ContextRequest{Query: "how many monthly snapshots do we keep"})
		if err != nil {
			t.Fatal(err)
		}
		if !resp.Grounded || len(resp.Citations) == 0 || resp.Context == "" || len(resp.Suggestions) != 0 {
			t.Fatalf("context answer = %+v", resp)
		}
		if resp.Citations[0].Path != "homelab/Restic Backups.md" {
			t.Errorf("first citation %+v, want the Restic note", resp.Citations[0])
		}
		if !strings.HasPrefix(resp.Context, "<retrieved-context>\n") || !strings.HasSuffix(resp.Context, "</retrieved-context>\n") {
			t.Errorf("block not wrapped in <retrieved-context>:\n%s", resp.Context)
		}
		block := strings.Split(resp.Context, "\n")
		for i, c := range resp.Citations {
			if want := fmt.Sprintf("%s:L%d-L%d", c.Path, c.LineStart, c.LineEnd); c.Cite != want {
				t.Errorf("citation %d: cite %q, want %q", i+1, c.Cite, want)
			}
			if c.AbsPath != filepath.Join(e.vault, filepath.FromSlash(c.Path)) || c.Stale {
				t.Errorf("citation %d: %+v", i+1, c)
			}
			header := fmt.Sprintf("[%d] %s", i+1, c.Cite)
			h := slices.IndexFunc(block, func(l string) bool { return l == header || strings.HasPrefix(l, header+" ") })
			if h < 0 {
				t.Errorf("no header %q in the block:\n%s", header, resp.Context)
				continue
			}
			n := c.LineEnd - c.LineStart + 1
			if h+1+n > len(block) {
				t.Errorf("block ends inside entry %d:\n%s", i+1, resp.Context)
				continue
			}
			quoted := block[h+1 : h+1+n]
			if strings.HasSuffix(c.Path, ".pdf") {
				continue // extracted text: no lines on disk to compare
			}
			want, ok := fileLines(t, c.AbsPath, c.LineStart, c.LineEnd)
			if !ok {
				t.Errorf("citation %s is outside the file", c.Cite)
				continue
			}
			if !slices.Equal(quoted, want) {
				t.Errorf("entry %s quotes\n%q\nbut the file's lines are\n%q", c.Cite, quoted, want)
			}
		}
	})

	t.Run("context-nonsense-not-grounded", func(t *testing.T) {
		resp, err := d.client.Context(ctx, ipc.ContextRequest{Query: "qzxvjkw pfluberg xyzzyq"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Grounded || resp.Context != "" || len(resp.Citations) != 0 || len(resp.Suggestions) == 0 {
			t.Errorf("nonsense query: %+v", resp)
		}
		// Without an embedder, hybrid mode has no vector channel to miss;
		// asking for it by mode says why it cannot answer.
		vec, err := d.client.Search(ctx, ipc.SearchRequest{Query: "monthly snapshots", Mode: ipc.ModeVector})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(vec.Degraded, []string{"vector"}) || len(vec.Results) != 0 {
			t.Errorf("vector mode without an embedder: %+v", vec)
		}
	})

	t.Run("similar-without-vectors", func(t *testing.T) {
		a := "sim/" + simA
		resp, err := d.client.Similar(ctx, ipc.SimilarRequest{Path: a})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(resp.Degraded, "vector") {
			t.Errorf("degraded = %v, want vector", resp.Degraded)
		}
		why := map[string]string{}
		for _, n := range resp.Notes {
			why[n.Path] = n.Why
			if n.Path == a {
				t.Errorf("the note itself is listed: %+v", n)
			}
			if strings.Contains(n.Why, "vector") {
				t.Errorf("vector reason without an embedder: %+v", n)
			}
		}
		t.Logf("similar to %s without vectors: %+v", a, why)
		if w, ok := why["sim/"+simB]; !ok || !strings.Contains(w, "links") {
			t.Errorf("linked note: why %q (listed %v); notes %+v", w, ok, resp.Notes)
		}
		if w, ok := why["sim/"+simC]; !ok || !strings.Contains(w, "terms") {
			t.Errorf("note sharing the title words: why %q (listed %v); notes %+v", w, ok, resp.Notes)
		}
		// The link works backwards too.
		back, err := d.client.Similar(ctx, ipc.SimilarRequest{Path: filepath.Join(e.vault, "sim", simB)})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(back.Notes, func(n ipc.SimilarNote) bool { return n.Path == a && strings.Contains(n.Why, "links") }) {
			t.Errorf("similar to B (by absolute path) lacks A by its link: %+v", back)
		}
	})

	t.Run("similar-unknown-path-404", func(t *testing.T) {
		for _, p := range []string{"sim/Nope.md", "docs/placeholder", filepath.Join(e.vault, "sim", "Nope.md")} {
			_, err := d.client.Similar(ctx, ipc.SimilarRequest{Path: p})
			var ie *ipc.Error
			if !errors.As(err, &ie) || ie.Status != http.StatusNotFound {
				t.Errorf("similar %q: err %v, want a 404", p, err)
			}
		}
	})

	t.Run("pdf-pages", func(t *testing.T) { checkPDFPages(t, d, "papers/report.pdf") })

	// Last: it changes files on disk, which nothing reindexes (no
	// watching, no rescans).
	t.Run("stale", func(t *testing.T) {
		staleOf := func(q, path string) bool {
			t.Helper()
			for _, r := range d.search(t, q) {
				if r.Path == path {
					return r.Stale
				}
			}
			t.Fatalf("search %q: %s not found", q, path)
			return false
		}
		files := map[string]string{"descale citric": "stale/kettle.md", "oolong": "stale/teapot.md",
			"hibiscus": "stale/mug.md", "rooibos": "stale/saucer.md"}
		for q, p := range files {
			if staleOf(q, p) {
				t.Errorf("%s is stale before any change", p)
			}
		}
		// A line appended (size changes), a word swapped for one of the
		// same length (only the hash tells), and a file touched without a
		// change (time differs, hash equal: not stale).
		f, err := os.OpenFile(filepath.Join(e.vault, filepath.FromSlash("stale/kettle.md")), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("Rinse it twice afterwards.\n")
		f.Close()
		e.write("stale/mug.md", strings.Replace(lexicalNotes["stale/mug.md"], "blue", "pink", 1))
		later := time.Now().Add(time.Hour)
		for _, p := range []string{"stale/mug.md", "stale/saucer.md"} {
			if err := os.Chtimes(filepath.Join(e.vault, filepath.FromSlash(p)), later, later); err != nil {
				t.Fatal(err)
			}
		}
		want := map[string]bool{"stale/kettle.md": true, "stale/teapot.md": false, "stale/mug.md": true, "stale/saucer.md": false}
		for q, p := range files {
			if got := staleOf(q, p); got != want[p] {
				t.Errorf("%s: stale = %v, want %v", p, got, want[p])
			}
		}
		resp, err := d.client.Context(ctx, ipc.ContextRequest{Query: "descale the kettle with citric acid"})
		if err != nil {
			t.Fatal(err)
		}
		var kettle *ipc.ContextCitation
		for i, c := range resp.Citations {
			if c.Path == "stale/kettle.md" {
				kettle = &resp.Citations[i]
				header := fmt.Sprintf("[%d] %s", i+1, c.Cite)
				line := ""
				for l := range strings.SplitSeq(resp.Context, "\n") {
					if strings.HasPrefix(l, header) {
						line = l
					}
				}
				if !strings.Contains(line, "(stale: ") {
					t.Errorf("header of the changed file not marked stale: %q\n%s", line, resp.Context)
				}
			}
		}
		if kettle == nil || !kettle.Stale {
			t.Errorf("context citation of the changed file: %+v", resp.Citations)
		}
		resp, err = d.client.Context(ctx, ipc.ContextRequest{Query: "warm the teapot before brewing oolong"})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Citations) == 0 || resp.Citations[0].Path != "stale/teapot.md" || resp.Citations[0].Stale || strings.Contains(resp.Context, "(stale: ") {
			t.Errorf("unchanged file in context: %+v\n%s", resp.Citations, resp.Context)
		}
	})
	d.stop(t)
}

// TestPDFPagesPureGoBackend indexes the fixture report with the built-in
// PDF extractor forced onto its pure-Go backend (the one used where
// poppler's pdftotext is not installed).
func TestPDFPagesPureGoBackend(t *testing.T) {
	t.Parallel()
	pdf, err := os.ReadFile(sourceFile("plugins", "extract", "pdf", "testdata", "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, map[string]string{"a.md": "# A\n\nNothing about documents.\n", "report.pdf": string(pdf)})
	e.writeConfigTail("", "", `
[[plugin]]
name = "pdf"
kind = "extractor"
builtin = "pdf"
[plugin.options]
backend = "go"
`)
	d := e.start()
	if v := d.status(t).Vaults[0]; v.Documents != 2 || v.Failed != 0 {
		t.Fatalf("vault status = %+v", v)
	}
	if p := d.pluginNamed(t, "pdf"); p.State != ipc.PluginRunning || !p.Builtin {
		t.Errorf("pdf plugin = %+v", p)
	}
	checkPDFPages(t, d, "report.pdf")
	d.stop(t)
}

// checkPDFPages searches words of the fixture report (indexed at path)
// and checks each hit's page against the reference text of the PDF.
func checkPDFPages(t *testing.T, d *daemonProc, path string) {
	t.Helper()
	ref, err := os.ReadFile(sourceFile("plugins", "extract", "pdf", "testdata", "report.pdftotext"))
	if err != nil {
		t.Fatal(err)
	}
	// The reference text, one string per page, with spaces collapsed
	// (the pure-Go reader may space words differently from pdftotext).
	norm := func(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }
	var pages []string
	for p := range strings.SplitSeq(string(ref), "\f") {
		pages = append(pages, norm(p))
	}
	pageOf := func(text string) int {
		for i, p := range pages {
			if strings.Contains(p, norm(text)) {
				return i + 1
			}
		}
		return 0
	}
	samePage := 0
	for _, word := range []string{"kerning", "poppler", "garbage", "appendix"} {
		wordPage := pageOf(word)
		if wordPage == 0 {
			t.Fatalf("%q is not in the reference text", word)
		}
		rs := d.search(t, word)
		if len(rs) == 0 {
			t.Errorf("%q: no result", word)
			continue
		}
		r := rs[0]
		if r.Path != path || r.Page < 1 || !strings.Contains(strings.ToLower(r.Text), word) || r.Stale {
			t.Errorf("%q: top result %s page %d stale %v: %q", word, r.Path, r.Page, r.Stale, r.Text)
			continue
		}
		// A chunk may run on into the next page, which then holds the
		// word: its page is one of those its text spans.
		var lines []string
		for l := range strings.SplitSeq(r.Text, "\n") {
			if strings.TrimSpace(l) != "" {
				lines = append(lines, l)
			}
		}
		first, last := pageOf(lines[0]), pageOf(lines[len(lines)-1])
		// The page most of the chunk's lines are on.
		count := map[int]int{}
		most := 0
		for _, l := range lines {
			if p := pageOf(l); p > 0 {
				count[p]++
				if count[p] > count[most] || count[p] == count[most] && p < most {
					most = p
				}
			}
		}
		switch {
		case first == 0 || last == 0:
			// Lines this extractor joined differently: only the word's
			// page can be checked.
			if r.Page != wordPage {
				t.Errorf("%q: page %d, want %d (L%d-L%d: %q)", word, r.Page, wordPage, r.LineStart, r.LineEnd, r.Text)
			}
		case r.Page < first || r.Page > last || wordPage < first || wordPage > last:
			t.Errorf("%q (on page %d): result on page %d, its text runs from page %d to %d (L%d-L%d: %q)",
				word, wordPage, r.Page, first, last, r.LineStart, r.LineEnd, r.Text)
		case r.Page != wordPage && most == wordPage:
			// The chunk lives on the word's page but begins with the
			// overlap it repeats from the previous chunk, which is on the
			// page before.
			t.Errorf("BUG: %q: the hit cites page %d, but its text is on page %d except for the first line(s) it "+
				"repeats from the previous chunk as overlap (L%d-L%d: %q). index/prepare.go sets Page from "+
				"c.LineStart, which index/chunk/split.go (emitChildren) moved back into the previous page by "+
				"overlapStart; take the page of the chunk's own start (the piece's start before the overlap) instead",
				word, r.Page, wordPage, r.LineStart, r.LineEnd, r.Text)
		}
		if r.Page == wordPage {
			samePage++
		}
	}
	if samePage < 2 {
		t.Errorf("only %d words were found on their own page", samePage)
	}
}
