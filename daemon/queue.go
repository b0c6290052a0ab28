package daemon

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/ragd/ragd/index/ingest"
	"github.com/ragd/ragd/ipc"
)

// Job triggers, recorded with every ingestion run.
const (
	triggerStartup  = "startup"
	triggerWatch    = "watch"
	triggerPeriodic = "periodic"
	triggerManual   = "manual"
	// triggerRetry: files whose extraction failed for a transient reason,
	// tried again once their extractor is healthy.
	triggerRetry = "retry"
)

// job is one indexing pass: every vault, one vault, or some paths of one
// vault.
type job struct {
	trigger string
	vault   string        // "" = every vault
	paths   []string      // vault-relative files or folders; nil = the whole vault
	confirm bool          // removals may empty the vault or remove more than half of it
	done    chan struct{} // closed by finish
	results []ipc.ReindexResult
	prog    ingest.Progress
	started time.Time
	// merged are the jobs merged into this one while it waited; they
	// finish with it.
	merged []*job
	// stopped is set, before done is closed, when the daemon stopped
	// before the pass ran or finished.
	stopped bool
}

// finish ends j and the jobs merged into it, which get j's results.
func (j *job) finish(stopped bool) {
	for _, m := range j.merged {
		m.results, m.stopped = j.results, stopped
		close(m.done)
	}
	j.stopped = stopped
	close(j.done)
}

// jobQueue runs passes one at a time. Watch passes waiting for the same
// vault are merged, so a burst of changes (a git checkout, a sync client)
// becomes one pass instead of a queue of tiny ones.
type jobQueue struct {
	mu     sync.Mutex
	jobs   []*job
	wake   chan struct{}
	closed bool
}

func newJobQueue() *jobQueue { return &jobQueue{wake: make(chan struct{}, 1)} }

// push queues j, or merges it into a waiting pass that covers the same
// ground. A merged job finishes when the pass it joined finishes. After
// close, j finishes at once, stopped.
func (q *jobQueue) push(j *job) {
	j.done = make(chan struct{})
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		j.finish(true)
		return
	}
	for _, k := range q.jobs {
		if !mergeable(k, j) {
			continue
		}
		if k.paths != nil && j.paths != nil {
			for _, p := range j.paths {
				if !slices.Contains(k.paths, p) {
					k.paths = append(k.paths, p)
				}
			}
		} else {
			k.paths = nil // one of them is the whole vault
		}
		k.merged = append(k.merged, j) // j finishes with k
		return
	}
	q.jobs = append(q.jobs, j)
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// mergeable reports whether the queued job k can absorb j. Manual passes
// are never merged into (their caller waits for their own results), and a
// whole-daemon pass absorbs periodic and startup passes.
func mergeable(k, j *job) bool {
	switch {
	case k.trigger == triggerManual || j.trigger == triggerManual:
		return false
	case k.vault == "" && k.paths == nil:
		return true // a full pass of everything already waits
	case j.vault == "" || k.vault != j.vault:
		return false
	}
	return true
}

// close finishes every queued job, stopped, and makes pop return nil.
func (q *jobQueue) close() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.closed = true
	for _, j := range q.jobs {
		j.finish(true)
	}
	q.jobs = nil
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// pop waits for the next job; it returns nil when ctx ends or the queue
// is closed.
func (q *jobQueue) pop(ctx context.Context) *job {
	for {
		q.mu.Lock()
		if q.closed {
			q.mu.Unlock()
			return nil
		}
		if len(q.jobs) > 0 {
			j := q.jobs[0]
			q.jobs = q.jobs[1:]
			q.mu.Unlock()
			return j
		}
		q.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil
		case <-q.wake:
		}
	}
}

// pending reports the number of queued passes touching vault ("" = all).
func (q *jobQueue) pending(vault string) int {
	q.mu.Lock()
	defer q.mu.Unlock()
	n := 0
	for _, j := range q.jobs {
		if vault == "" || j.vault == "" || j.vault == vault {
			n++
		}
	}
	return n
}
