package main

// End-to-end tests of retrieval through the real daemon: hybrid ranking
// with the offline embedder on the example vault, /v1/context, /v1/similar,
// stale citations and PDF pages. Each top-level test starts one daemon and
// runs its checks as subtests against it.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

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
	ragdtest.CopyTree(t, sourceFile("docs", "example-vault"), e.Vault)
	simVault := filepath.Join(e.Root, "sim")
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
		resp, err := d.Client.Search(ctx, req)
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
		resp, err := d.Client.Similar(ctx, ipc.SimilarRequest{Path: simA, K: 10})
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
	d.Stop(t)
}
