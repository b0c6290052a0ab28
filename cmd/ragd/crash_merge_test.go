package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

// crashKit is what crash trials share: one environment, the vault they
// start from, the queries asked, a clean build to compare with, and data
// dirs to start from.
type crashKit struct {
	e         *testEnv
	base      map[string]string
	queries   []string
	clean     reference // a clean build of base
	baseData  string    // that build's data dir, stopped
	mergeData string    // base indexed into many small segments, stopped
	vault     string    // what the vault holds now: "base", "burst" or ""
	// burst is a burst of changes to base (make torture), afterBurst a
	// clean build of what it leaves.
	burst      []burstOp
	afterBurst reference
}

// newCrashKit writes base into a new environment and builds it cleanly.
func newCrashKit(t *testing.T, base map[string]string) *crashKit {
	t.Helper()
	e := newEnv(t, base)
	k := &crashKit{e: e, base: base, queries: pickQueries(base, 30), vault: "base",
		baseData: filepath.Join(e.Root, "base-data"), mergeData: filepath.Join(e.Root, "merge-data")}
	useData(e, k.baseData, true)
	var err error
	if k.clean, err = settle(e, k.queries); err != nil {
		t.Fatalf("clean build: %v", err)
	}
	return k
}

// env is the kit's environment for test t.
func (k *crashKit) env(t *testing.T) *testEnv {
	e := *k.e
	e.T = t
	return &e
}

// trialEnv is the environment of a trial: the base vault, and a data dir
// that is empty or, if from is not "", a copy of from.
func (k *crashKit) trialEnv(t *testing.T, from string) *testEnv {
	t.Helper()
	e := k.env(t)
	k.useBase(e)
	useData(e, filepath.Join(e.Root, "data"), true)
	if from != "" {
		ragdtest.CopyTree(t, from, e.Data)
	}
	return e
}

// useBase makes the vault hold the base files, unless it does already.
func (k *crashKit) useBase(e *testEnv) {
	if k.vault != "base" {
		resetVault(e, k.base)
		k.vault = "base"
	}
}

// prepareMerges indexes the base vault into many small segments (no
// merges): the notes are written in twelve groups, each indexed by a
// reindex of its own while segments are tiny. The result must hold what
// the clean build holds.
func (k *crashKit) prepareMerges(t *testing.T) {
	t.Helper()
	e := k.env(t)
	resetVault(e, nil)
	k.vault = ""
	useData(e, k.mergeData, true)
	d := e.startEnv(tinySegments)
	paths := slices.Sorted(maps.Keys(k.base))
	const groups = 12
	for g := range groups {
		for _, p := range paths[g*len(paths)/groups : (g+1)*len(paths)/groups] {
			e.Write(p, k.base[p])
		}
		if _, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Wait: true}); err != nil {
			t.Fatal(err)
		}
	}
	k.vault = "base"
	d.Stop(t)
	ents, _ := os.ReadDir(filepath.Join(k.mergeData, "index", "segments"))
	segs := 0
	for _, de := range ents {
		if strings.HasSuffix(de.Name(), ".seg") {
			segs++
		}
	}
	if segs < 8 {
		t.Fatalf("the tiny-segment build made %d segments; the merge trials need at least 8", segs)
	}
	// Checked on a copy: opening a store (readIndex) merges its segments.
	check := filepath.Join(e.Root, "merge-check")
	useData(e, check, true)
	ragdtest.CopyTree(t, k.mergeData, check)
	got, err := settle(e, k.queries, tinySegments)
	if err == nil {
		if diff := got.differs(k.clean); diff != "" {
			err = fmt.Errorf("%s", diff)
		}
	}
	if err != nil {
		t.Fatalf("a build into tiny segments: %v", err)
	}
	t.Logf("the tiny-segment build made %d segments", segs)
}

// mergePhases are the steps of a merge's commit, each told by the event
// its first write makes in the segment directory: the merged segment
// written to a temporary file, renamed into place, the manifest naming it
// written and renamed, the merged-away segments removed.
var mergePhases = []struct {
	name string
	at   func(fsnotify.Event) bool
}{
	{"writing a merged segment", func(ev fsnotify.Event) bool {
		return ev.Has(fsnotify.Create) && strings.HasSuffix(ev.Name, ".seg.tmp")
	}},
	{"merged segment written, manifest not yet", func(ev fsnotify.Event) bool {
		return ev.Has(fsnotify.Create) && strings.HasSuffix(ev.Name, ".seg")
	}},
	{"writing the manifest", func(ev fsnotify.Event) bool {
		return ev.Has(fsnotify.Create) && filepath.Base(ev.Name) == "MANIFEST.tmp"
	}},
	{"manifest committed, merged-away segments not yet removed", func(ev fsnotify.Event) bool {
		return ev.Has(fsnotify.Create) && filepath.Base(ev.Name) == "MANIFEST"
	}},
}

// mergeTrial starts ragd on the many-segment data dir with merging
// segments (so that it does nothing but merge), kills it with SIGKILL at
// the nth time a merge reaches the phase, and checks that the restarted
// daemon converges to the clean build. It says where the kill landed and
// what it left in the segment directory.
func (k *crashKit) mergeTrial(t *testing.T, phase, nth int) string {
	t.Helper()
	e := k.trialEnv(t, k.mergeData)
	dir := filepath.Join(e.Data, "index", "segments")
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	d := e.ragdEnv([]string{mergingSegments}, "run", "-config", e.Config)
	timeout := time.After(ragdtest.WaitTimeout)
	for seen := 0; seen < nth; {
		select {
		case ev := <-w.Events:
			if mergePhases[phase].at(ev) {
				seen++
			}
		case err := <-w.Errors:
			t.Fatal(err)
		case <-d.Exited():
			t.Fatalf("ragd died before the kill: %v\n%s", d.Err(), d.Output())
		case <-timeout:
			t.Fatalf("merge %d never reached %q", nth, mergePhases[phase].name)
		}
	}
	kill(t, d)
	left, ok := segmentsLeft(dir)
	if !ok {
		t.Errorf("the kill left a manifest naming missing segments: %s", left)
	}
	got, err := settle(e, k.queries, mergingSegments)
	if err != nil {
		t.Errorf("after the kill: %v", err)
	} else if diff := got.differs(k.clean); diff != "" {
		t.Errorf("after the kill: %s", diff)
	}
	return fmt.Sprintf("merge event %d, %s; left: %s", nth, mergePhases[phase].name, left)
}

// TestCrashDuringSegmentMerge kills ragd with SIGKILL as a segment merge
// writes its segment and as it has written it, before the manifest names
// it (make torture kills at every step of the commit, many times), and
// checks that the restarted daemon's index is identical to a clean build:
// Store.Check, Store.Dump and the answers to the same queries.
func TestCrashDuringSegmentMerge(t *testing.T) {
	t.Parallel()
	k := newCrashKit(t, syntheticVault(600))
	k.prepareMerges(t)
	for phase := range mergePhases[:2] {
		t.Run(strings.ReplaceAll(mergePhases[phase].name, " ", "_"), func(t *testing.T) {
			t.Log(k.mergeTrial(t, phase, 1))
		})
	}
}
