package daemon

import (
	"context"
	"reflect"
	"testing"

	"github.com/ragd/ragd/ipc"
)

func TestQueueMergesWatchPassesOfOneVault(t *testing.T) {
	q := newJobQueue()
	a := &job{trigger: triggerWatch, vault: "notes", paths: []string{"a.md"}}
	b := &job{trigger: triggerWatch, vault: "notes", paths: []string{"b.md", "a.md"}}
	c := &job{trigger: triggerWatch, vault: "work", paths: []string{"c.md"}}
	m := &job{trigger: triggerManual, vault: "notes"}
	for _, j := range []*job{a, b, c, m} {
		q.push(j)
	}
	if n := q.pending(""); n != 3 {
		t.Fatalf("pending = %d, want 3 (b merged into a)", n)
	}
	if n := q.pending("notes"); n != 2 {
		t.Fatalf("pending(notes) = %d", n)
	}
	got := q.pop(context.Background())
	if got != a || !reflect.DeepEqual(a.paths, []string{"a.md", "b.md"}) {
		t.Fatalf("first = %+v", got)
	}
	// b completes with a, with a's results.
	a.results = []ipc.ReindexResult{{Vault: "notes", Indexed: 2}}
	a.finish(false)
	select {
	case <-b.done:
	default:
		t.Fatal("merged job not completed with its host")
	}
	if !reflect.DeepEqual(b.results, a.results) || b.stopped {
		t.Fatalf("merged job results %+v stopped %v", b.results, b.stopped)
	}
	if q.pop(context.Background()) != c || q.pop(context.Background()) != m {
		t.Fatal("order")
	}
}

func TestQueueWholeVaultAbsorbsPaths(t *testing.T) {
	q := newJobQueue()
	full := &job{trigger: triggerStartup}
	q.push(full)
	q.push(&job{trigger: triggerWatch, vault: "notes", paths: []string{"x.md"}})
	q.push(&job{trigger: triggerPeriodic})
	if n := q.pending(""); n != 1 || full.paths != nil {
		t.Fatalf("pending = %d, paths %v", n, full.paths)
	}
	w := &job{trigger: triggerWatch, vault: "notes", paths: []string{"y.md"}}
	q2 := newJobQueue()
	q2.push(w)
	q2.push(&job{trigger: triggerWatch, vault: "notes"}) // overflow rescan
	if w.paths != nil {
		t.Fatalf("rescan did not widen the queued pass: %v", w.paths)
	}
}

func TestQueuePopHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if j := newJobQueue().pop(ctx); j != nil {
		t.Fatalf("pop = %+v", j)
	}
}

// Closing the queue ends the passes still waiting (and those merged into
// them) as stopped, so nobody waits for a pass that will never run.
func TestQueueCloseFinishesWaitingJobs(t *testing.T) {
	q := newJobQueue()
	a := &job{trigger: triggerWatch, vault: "notes", paths: []string{"a.md"}}
	b := &job{trigger: triggerWatch, vault: "notes", paths: []string{"b.md"}}
	m := &job{trigger: triggerManual}
	for _, j := range []*job{a, b, m} {
		q.push(j)
	}
	q.close()
	for name, j := range map[string]*job{"queued": a, "merged": b, "manual": m} {
		select {
		case <-j.done:
			if !j.stopped {
				t.Errorf("%s job finished, not stopped", name)
			}
		default:
			t.Errorf("%s job still waits after close", name)
		}
	}
	late := &job{trigger: triggerManual}
	q.push(late)
	select {
	case <-late.done:
	default:
		t.Error("a job pushed after close waits")
	}
	if j := q.pop(context.Background()); j != nil {
		t.Errorf("pop after close = %+v", j)
	}
}
