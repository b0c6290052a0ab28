package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
)

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
		resp, err := d.Client.Context(ctx, ipc.ContextRequest{Query: "how many monthly snapshots do we keep"})
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
			if c.AbsPath != filepath.Join(e.Vault, filepath.FromSlash(c.Path)) || c.Stale {
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
		resp, err := d.Client.Context(ctx, ipc.ContextRequest{Query: "qzxvjkw pfluberg xyzzyq"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.Grounded || resp.Context != "" || len(resp.Citations) != 0 || len(resp.Suggestions) == 0 {
			t.Errorf("nonsense query: %+v", resp)
		}
		// Without an embedder, hybrid mode has no vector channel to miss;
		// asking for it by mode says why it cannot answer.
		vec, err := d.Client.Search(ctx, ipc.SearchRequest{Query: "monthly snapshots", Mode: ipc.ModeVector})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(vec.Degraded, []string{"vector"}) || len(vec.Results) != 0 {
			t.Errorf("vector mode without an embedder: %+v", vec)
		}
	})

	t.Run("similar-without-vectors", func(t *testing.T) {
		a := "sim/" + simA
		resp, err := d.Client.Similar(ctx, ipc.SimilarRequest{Path: a})
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
		back, err := d.Client.Similar(ctx, ipc.SimilarRequest{Path: filepath.Join(e.Vault, "sim", simB)})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(back.Notes, func(n ipc.SimilarNote) bool { return n.Path == a && strings.Contains(n.Why, "links") }) {
			t.Errorf("similar to B (by absolute path) lacks A by its link: %+v", back)
		}
	})

	t.Run("similar-unknown-path-404", func(t *testing.T) {
		for _, p := range []string{"sim/Nope.md", "docs/placeholder", filepath.Join(e.Vault, "sim", "Nope.md")} {
			_, err := d.Client.Similar(ctx, ipc.SimilarRequest{Path: p})
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
		f, err := os.OpenFile(filepath.Join(e.Vault, filepath.FromSlash("stale/kettle.md")), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("Rinse it twice afterwards.\n")
		f.Close()
		e.write("stale/mug.md", strings.Replace(lexicalNotes["stale/mug.md"], "blue", "pink", 1))
		later := time.Now().Add(time.Hour)
		for _, p := range []string{"stale/mug.md", "stale/saucer.md"} {
			if err := os.Chtimes(filepath.Join(e.Vault, filepath.FromSlash(p)), later, later); err != nil {
				t.Fatal(err)
			}
		}
		want := map[string]bool{"stale/kettle.md": true, "stale/teapot.md": false, "stale/mug.md": true, "stale/saucer.md": false}
		for q, p := range files {
			if got := staleOf(q, p); got != want[p] {
				t.Errorf("%s: stale = %v, want %v", p, got, want[p])
			}
		}
		resp, err := d.Client.Context(ctx, ipc.ContextRequest{Query: "descale the kettle with citric acid"})
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
		resp, err = d.Client.Context(ctx, ipc.ContextRequest{Query: "warm the teapot before brewing oolong"})
		if err != nil {
			t.Fatal(err)
		}
		if len(resp.Citations) == 0 || resp.Citations[0].Path != "stale/teapot.md" || resp.Citations[0].Stale || strings.Contains(resp.Context, "(stale: ") {
			t.Errorf("unchanged file in context: %+v\n%s", resp.Citations, resp.Context)
		}
	})
	d.Stop(t)
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
	d.Stop(t)
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
