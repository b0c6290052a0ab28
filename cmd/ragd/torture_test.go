package main

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

// The crash suite of make torture (not part of make test): RAGD_TORTURE_TRIALS
// kill -9 trials, each checked against a clean build, and a query load.
const (
	envTortureTrials = "RAGD_TORTURE_TRIALS" // how many kill -9 trials; none: the test is skipped
	envTortureVault  = "RAGD_TORTURE_VAULT"  // a vault to copy and index; default 3,000 synthetic notes
	envTortureSeed   = "RAGD_TORTURE_SEED"   // the trials' random seed (default 1)
)

// tortureKinds is the cycle of trial kinds: a kill -9 during a cold index
// (with default segments, or tiny ones that flush and merge all the time),
// during or after a burst of edits, renames, deletes and folder moves, and
// in a segment merge's commit.
var tortureKinds = []string{"cold", "burst", "merge", "cold-merging", "burst", "merge", "cold", "merge", "cold-merging", "burst"}

// TestTorture runs the kill -9 trials of make torture and prints a table
// of their outcomes: every restarted daemon must end with an index
// identical to a clean build of the same files (Store.Check, Store.Dump,
// the answers to 30 queries), and no daemon may die but by the kills.
func TestTorture(t *testing.T) {
	trials, _ := strconv.Atoi(os.Getenv(envTortureTrials))
	if trials <= 0 {
		t.Skip("make torture runs it: " + envTortureTrials + " kill -9 trials")
	}
	seed := uint64(1)
	if s := os.Getenv(envTortureSeed); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s: %v", envTortureSeed, err)
		}
		seed = n
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	base, source := syntheticVault(3000), "3000 synthetic notes"
	if dir := os.Getenv(envTortureVault); dir != "" {
		base, source = readVault(t, dir), dir
	}
	fmt.Printf("torture: %d kill -9 trials on %s (%d files), seed %d\n", trials, source, len(base), seed)

	start := time.Now()
	k := newCrashKit(t, base)
	k.prepareMerges(t)
	k.prepareBurst(t, rand.New(rand.NewPCG(seed, 2)))
	fmt.Printf("torture: clean builds ready in %s\n", time.Since(start).Round(time.Second))

	type row struct {
		kind, detail string
		ok           bool
	}
	var rows []row
	for i := range trials {
		kind := tortureKinds[i%len(tortureKinds)]
		var detail string
		ok := t.Run(fmt.Sprintf("%02d-%s", i+1, kind), func(t *testing.T) {
			switch kind {
			case "cold":
				detail = k.coldTrial(t, rng.Float64())
			case "cold-merging":
				detail = k.coldTrial(t, rng.Float64(), mergingSegments)
			case "burst":
				detail = k.burstTrial(t, rng.IntN(len(k.burst)*4/3))
			case "merge":
				detail = k.mergeTrial(t, rng.IntN(len(mergePhases)), 1+rng.IntN(4))
			}
		})
		rows = append(rows, row{kind, detail, ok})
		fmt.Printf("torture: trial %2d %-12s %-4s %s\n", i+1, kind, map[bool]string{true: "ok", false: "FAIL"}[ok], detail)
	}
	var load string
	loadOK := t.Run("load", func(t *testing.T) { load = k.load(t) })

	fmt.Printf("\n| trials | kind | consistent | inconsistent or died |\n|---|---|---|---|\n")
	total, failed := 0, 0
	for _, kind := range []string{"cold", "cold-merging", "burst", "merge"} {
		n, bad := 0, 0
		for _, r := range rows {
			if r.kind == kind {
				n++
				if !r.ok {
					bad++
				}
			}
		}
		total, failed = total+n, failed+bad
		fmt.Printf("| %d | %s | %d | %d |\n", n, kindTitle[kind], n-bad, bad)
	}
	fmt.Printf("| %d | all kill -9 trials | %d | %d |\n", total, total-failed, failed)
	fmt.Printf("\nload: %s (%s)\n", load, map[bool]string{true: "ok", false: "FAIL"}[loadOK])
	fmt.Printf("torture: done in %s\n", time.Since(start).Round(time.Second))
}

var kindTitle = map[string]string{
	"cold":         "kill during a cold index",
	"cold-merging": "kill during a cold index, segments flushing and merging all the time",
	"burst":        "kill during or after a burst of 300 edits, creations, deletions, renames and folder moves",
	"merge":        "kill in a segment merge's commit",
}

// coldTrial indexes the vault into an empty data dir, kills ragd once the
// pass has examined frac of the files, and checks the restarted daemon
// converges to the clean build. env tunes the daemon (its segments).
func (k *crashKit) coldTrial(t *testing.T, frac float64, env ...string) string {
	t.Helper()
	e := k.trialEnv(t, "")
	d := e.ragdEnv(env, "run", "-config", e.Config)
	detail := killDuringPass(t, d, 0.02+0.96*frac)
	if len(env) > 0 {
		left, ok := segmentsLeft(filepath.Join(e.Data, "index", "segments"))
		if !ok {
			t.Errorf("the kill left a manifest naming missing segments: %s", left)
		}
		detail += "; left: " + left
	}
	k.converges(t, e, k.clean, env...)
	return detail
}

// converges restarts ragd on the crashed data dir and compares what it
// ends with to want.
func (k *crashKit) converges(t *testing.T, e *testEnv, want reference, env ...string) {
	t.Helper()
	got, err := settle(e, k.queries, env...)
	if err != nil {
		t.Errorf("after the kill: %v", err)
	} else if diff := got.differs(want); diff != "" {
		t.Errorf("after the kill: %s", diff)
	}
}

// burstOp is one change of a burst: an edit, a new note, a deletion, a
// rename (into the folder of another note) or a folder move.
type burstOp struct {
	kind, from, to, body string
}

// burstLen is how many changes a burst makes.
const burstLen = 300

// makeBurst plans a burst of changes to files, and returns it with the
// files it leaves. A folder moved holds at most 2 % of the notes, so that
// no pass removes half the vault (which would be held).
func makeBurst(files map[string]string, rng *rand.Rand) ([]burstOp, map[string]string) {
	m := maps.Clone(files)
	var ops []burstOp
	for i := 0; len(ops) < burstLen; i++ {
		var notes []string
		for p := range m {
			if strings.HasSuffix(p, ".md") {
				notes = append(notes, p)
			}
		}
		slices.Sort(notes)
		p := notes[rng.IntN(len(notes))]
		switch r := rng.IntN(100); {
		case r < 45:
			m[p] += fmt.Sprintf("\n\nEdit %d: the burst adds zanzibar%d here.\n", i, i%13)
			ops = append(ops, burstOp{kind: "edit", to: p, body: m[p]})
		case r < 60:
			to := path.Join(path.Dir(p), fmt.Sprintf("burst note %d.md", i))
			m[to] = fmt.Sprintf("# Burst note %d\n\nWritten during the burst about quokka%d and wombats.\n", i, i%10)
			ops = append(ops, burstOp{kind: "edit", to: to, body: m[to]})
		case r < 75:
			delete(m, p)
			ops = append(ops, burstOp{kind: "delete", from: p})
		case r < 95:
			to := path.Join(path.Dir(notes[rng.IntN(len(notes))]), fmt.Sprintf("renamed %d %s", i, path.Base(p)))
			m[to] = m[p]
			delete(m, p)
			ops = append(ops, burstOp{kind: "rename", from: p, to: to})
		default:
			dir := path.Dir(p)
			var under []string
			for q := range m {
				if strings.HasPrefix(q, dir+"/") {
					under = append(under, q)
				}
			}
			if dir == "." || len(under) > len(notes)/50 {
				continue
			}
			to := fmt.Sprintf("%s moved %d", dir, i)
			for _, q := range under {
				m[to+strings.TrimPrefix(q, dir)] = m[q]
				delete(m, q)
			}
			ops = append(ops, burstOp{kind: "rename", from: dir, to: to})
		}
	}
	return ops, m
}

// apply makes the change op in the vault.
func (op burstOp) apply(e *testEnv) {
	e.T.Helper()
	var err error
	switch op.kind {
	case "edit":
		e.Write(op.to, op.body)
	case "delete":
		err = os.Remove(e.abs(op.from))
	case "rename":
		if err = os.MkdirAll(filepath.Dir(e.abs(op.to)), 0o755); err == nil {
			err = os.Rename(e.abs(op.from), e.abs(op.to))
		}
	}
	if err != nil {
		e.T.Fatalf("%s: %v", op.kind, err)
	}
}

// prepareBurst plans the burst and builds what it leaves cleanly.
func (k *crashKit) prepareBurst(t *testing.T, rng *rand.Rand) {
	t.Helper()
	e := k.env(t)
	var after map[string]string
	k.burst, after = makeBurst(k.base, rng)
	k.useBase(e)
	for _, op := range k.burst {
		op.apply(e)
	}
	k.vault = "burst"
	if got := readVault(t, e.Vault); !maps.Equal(got, after) {
		t.Fatalf("the burst left %d files, planned %d", len(got), len(after))
	}
	useData(e, filepath.Join(e.Root, "burst-data"), true)
	var err error
	if k.afterBurst, err = settle(e, k.queries); err != nil {
		t.Fatalf("clean build after the burst: %v", err)
	}
}

// burstTrial starts ragd on the clean build of the vault, makes the burst
// and kills ragd before change at or, for at past the burst, at the
// (at-300)·3+1st file the daemon indexes or removes from the start of the
// burst (or once it is idle again); then it checks that the restarted
// daemon converges to the clean build of what the burst leaves.
func (k *crashKit) burstTrial(t *testing.T, at int) string {
	t.Helper()
	e := k.trialEnv(t, k.baseData)
	d := e.startWatching()
	ctx, cancel := context.WithCancel(context.Background())
	events := make(chan ipc.Event, 4096)
	go func() {
		defer close(events)
		d.Client.Events(ctx, func(ev ipc.Event) error {
			select {
			case events <- ev:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	defer func() {
		cancel()
		for range events { // joined: the reader has ended
		}
	}()
	var detail string
	for i, op := range k.burst {
		if i == at {
			kill(t, d)
			detail = fmt.Sprintf("before change %d of %d", i+1, len(k.burst))
		}
		op.apply(e)
		time.Sleep(time.Millisecond) // a burst, not one event
	}
	k.vault = "burst"
	if at >= len(k.burst) {
		detail = "after the burst, " + killAtFileEvent(t, d, events, (at-len(k.burst))*3+1)
	}
	k.converges(t, e, k.afterBurst)
	return detail
}

// killAtFileEvent kills ragd at the nth file indexed, removed or failed
// in events, or when it is idle after a run if that comes first.
func killAtFileEvent(t *testing.T, d *daemonProc, events <-chan ipc.Event, nth int) string {
	t.Helper()
	files := 0
	timeout := time.After(ragdtest.WaitTimeout)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatalf("the event stream ended: ragd died?\n%s", d.Output())
			}
			switch ev.Type {
			case ipc.EventIndexed, ipc.EventRemoved, ipc.EventFailed:
				if files++; files >= nth {
					kill(t, d)
					return fmt.Sprintf("at file event %d", files)
				}
			case ipc.EventRunFinished:
				if st, err := d.Client.Status(context.Background()); err == nil && ragdtest.Idle(st) {
					kill(t, d)
					return fmt.Sprintf("idle after %d file events", files)
				}
			}
		case <-timeout:
			t.Fatalf("no file event %d and never idle", nth)
		}
	}
}

// load runs 16 clients of 1,000 queries each against a daemon that starts
// a cold index of the vault; none may fail.
func (k *crashKit) load(t *testing.T) string {
	e := k.trialEnv(t, "")
	d := e.ragdEnv(nil, "run", "-config", e.Config)
	d.Poll(t, "ragd to answer", func() bool { _, err := d.Client.Status(context.Background()); return err == nil })
	var errs, answered, whileIndexing atomic.Int64
	var first atomic.Value
	var wg sync.WaitGroup
	for c := range 16 {
		wg.Go(func() {
			cl := ipc.NewClient(e.Socket)
			defer cl.Close()
			for i := range 1000 {
				_, err := cl.Search(context.Background(), ipc.SearchRequest{Query: k.queries[(c+i)%len(k.queries)], K: 10})
				if err != nil {
					errs.Add(1)
					first.CompareAndSwap(nil, err.Error())
					continue
				}
				answered.Add(1)
				if i%100 == 0 { // sampled: is the pass still running?
					if st, err := cl.Status(context.Background()); err == nil && st.State != ipc.StateIdle {
						whileIndexing.Add(100)
					}
				}
			}
		})
	}
	wg.Wait()
	d.WaitIdle(t)
	d.Stop(t)
	if errs.Load() > 0 {
		t.Errorf("%d of 16,000 queries failed; the first: %v", errs.Load(), first.Load())
	}
	return fmt.Sprintf("16 clients × 1,000 queries from the start of a cold index: %d answered, %d errors, about %d while indexing",
		answered.Load(), errs.Load(), whileIndexing.Load())
}
