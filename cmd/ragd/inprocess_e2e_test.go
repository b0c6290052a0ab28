package main

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/ragd/ragd/ipc"
)

// The default reranker runs in ragd's process: /v1/plugins says so (no
// pid) and counts its calls. `subprocess = true` in its [[plugin]] puts it
// back in a process of its own, and the same vault then ranks exactly the
// same.
func TestRerankerInProcess(t *testing.T) {
	t.Parallel()
	e := newEnv(t, map[string]string{
		"garden/soil.md": "# Soil\n\n## Compost heaps\n\nTurn the compost heap weekly; a warm heap breaks down faster.\n\n" +
			"## Watering\n\nWater the soil deeply, compost keeps it moist.\n",
		"garden/compost.md":  "# Compost\n\nKitchen scraps and leaves make compost. Keep the heap damp.\n",
		"kitchen/scraps.md":  "# Scraps\n\nVegetable scraps go to the compost bin, not the bin for rubbish.\n",
		"journal/2024-05.md": "# May\n\nSpread compost on the beds and watered the soil.\n",
		"recipes/bread.md":   "# Bread\n\nSourdough needs a warm kitchen.\n",
	})
	queries := []string{"compost heap", "soil watering", "warm kitchen", "compost"}
	ranked := func(d *daemonProc) []string {
		t.Helper()
		var out []string
		for _, q := range queries {
			resp, err := d.Client.Search(context.Background(), ipc.SearchRequest{Query: q, K: 10})
			if err != nil {
				t.Fatalf("search %q: %v", q, err)
			}
			if slices.Contains(resp.Degraded, "rerank") || len(resp.Results) == 0 {
				t.Fatalf("search %q: %d results, degraded %v", q, len(resp.Results), resp.Degraded)
			}
			for _, r := range resp.Results {
				out = append(out, fmt.Sprintf("%s: %s %s %.17g", q, r.Path, r.ID, r.Score))
			}
		}
		return out
	}

	d := e.start()
	if p := d.pluginNamed(t, "heuristic"); !p.InProcess || !p.Builtin || p.PID != 0 || p.State != ipc.PluginIdle {
		t.Fatalf("before the first search: %+v", p)
	}
	inProcess := ranked(d)
	if p := d.pluginNamed(t, "heuristic"); !p.InProcess || p.PID != 0 || p.State != ipc.PluginRunning ||
		p.Calls != int64(len(queries)) || p.Errors != 0 {
		t.Fatalf("after %d searches: %+v", len(queries), p)
	}
	d.Stop(t)

	e.writeConfigTail("", "", "[[plugin]]\nname = \"heuristic\"\nkind = \"reranker\"\nbuiltin = \"heuristic\"\nsubprocess = true\n")
	d = e.start()
	subprocess := ranked(d)
	if p := d.pluginNamed(t, "heuristic"); p.InProcess || !p.Builtin || p.PID == 0 || p.Command == "" ||
		p.State != ipc.PluginRunning || p.Calls != int64(len(queries)) {
		t.Fatalf("with subprocess = true: %+v", p)
	}
	if !slices.Equal(inProcess, subprocess) {
		t.Errorf("rankings differ\nin ragd's process:\n%s\nin a process of its own:\n%s", inProcess, subprocess)
	}
}
