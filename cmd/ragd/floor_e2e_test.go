package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ragd/ragd/ipc"
)

// A query the vaults cannot answer gets no results at every moment: while
// the first embedding pass runs with no similarity floor measured yet (the
// vector channel has vectors but grounds nothing on its own), once the
// floor is measured, and right after a restart (the floor is kept).
func TestNonsenseFindsNothingBeforeAndAfterCalibration(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	notes := map[string]string{}
	for i, body := range []string{
		"Tomato seedlings need a trellis and mulch against aphids.",
		"Basil likes compost; pruning keeps it bushy.",
		"The espresso grinder setting decides the crema.",
		"A light roast brews best with the kettle just off the boil.",
		"Feed the sourdough starter before it can ferment too far.",
		"Mulch the compost heap and prune the tomato plants.",
		"Grinder burrs wear out: the roast tastes flat.",
		"A sourdough loaf needs a lively starter and a long ferment.",
	} {
		notes[fmt.Sprintf("note%d.md", i)] = fmt.Sprintf("# Note %d\n\n%s\n", i, body)
	}
	e := newEnv(t, notes)
	gate := t.TempDir()
	e.writeConfigTail("", "", fmt.Sprintf(`
[[plugin]]
name = "embed"
kind = "embedder"
command = %q
env = { %s = %q, %s = %q }

[search]
embedder = "embed"
`, exe, envTestPlugin, vocabEmbedderName, envTestPluginDir, gate))
	ctx := context.Background()
	nonsense := []string{"zzzqqqxx", "blorf quux wibble", "what is the capital of mongolia"}
	ask := func(t *testing.T, d *daemonProc, q, mode string) *ipc.SearchResponse {
		t.Helper()
		resp, err := d.Client.Search(ctx, ipc.SearchRequest{Query: q, K: 10, Mode: mode})
		if err != nil {
			t.Fatalf("search %q: %v", q, err)
		}
		return resp
	}
	noAnswer := func(t *testing.T, d *daemonProc, when string) {
		t.Helper()
		for _, q := range nonsense {
			for _, mode := range []string{ipc.ModeHybrid, ipc.ModeVector} {
				resp := ask(t, d, q, mode)
				if len(resp.Results) != 0 || resp.Grounded {
					t.Errorf("%s: %s search %q answered %q (grounded %v)", when, mode, q, paths(resp.Results), resp.Grounded)
				}
				if len(resp.Degraded) != 0 {
					t.Errorf("%s: %s search %q degraded %v: the vector channel must have run", when, mode, q, resp.Degraded)
				}
			}
		}
	}

	// First pass: vectors land, calibration waits for the gate.
	d := e.ragd("run", "-config", e.Config)
	d.Poll(t, func() string { return "the first vectors" }, func() bool {
		st, err := d.Client.Status(ctx)
		return err == nil && st.Vector != nil && st.Vector.Vectors > 0
	})
	if st := d.status(t); st.Vector.Floor != 0 {
		t.Fatalf("the floor was measured with the gate closed: %+v", *st.Vector)
	}
	noAnswer(t, d, "before calibration")
	if got := paths(ask(t, d, "sourdough starter", ipc.ModeHybrid).Results); got == "" {
		t.Error("a real question found nothing before calibration")
	}

	// The floor is measured: nonsense still finds nothing, the vector
	// channel answers real questions on its own.
	if err := os.WriteFile(filepath.Join(gate, "open"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	st := d.waitVectors(t)
	if st.Vector.Floor <= 0 {
		t.Fatalf("no floor after the pass: %+v", *st.Vector)
	}
	noAnswer(t, d, "after calibration")
	if got := paths(ask(t, d, "espresso grinder", ipc.ModeVector).Results); got == "" {
		t.Error("vector mode found nothing for a real question after calibration")
	}
	d.Stop(t)

	// Restart with the gate closed again: the floor is known at once.
	if err := os.Remove(filepath.Join(gate, "open")); err != nil {
		t.Fatal(err)
	}
	d = e.ragd("run", "-config", e.Config)
	d.Poll(t, func() string { return "the restarted daemon" }, func() bool {
		st, err := d.Client.Status(ctx)
		return err == nil && st.Vector != nil && st.Vector.Vectors > 0
	})
	noAnswer(t, d, "right after a restart")
	if got := paths(ask(t, d, "espresso grinder", ipc.ModeVector).Results); got == "" {
		t.Error("vector mode found nothing right after a restart: the floor was not kept")
	}
	d.Stop(t)
}
