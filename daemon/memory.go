package daemon

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// startupMemoryLimit is the Go runtime's soft memory limit from the opening
// of the index to the end of the start-up pass.
//
// A cold start allocates fast and keeps much of it (postings, graph, Badger's
// memtable): left to the default GOGC=100 the heap grows to twice the live
// data before each collection, and the peak resident memory of a cold start
// on a 15 MB vault was ~30 MB higher than under this limit, which costs ~5 %
// more CPU there (docs/architecture.md, Measurements). The limit never lowers
// one set with GOMEMLIMIT, and it rises with the live heap (to
// startupHeadroom times it), so a vault whose index needs more memory is
// collected as with GOGC=50 rather than continuously.
//
// Past largeHeap of live heap — a vault of a few hundred thousand notes —
// that pacing made the collector's share of a cold index grow with the
// vault: on the scale benchmark's 50× vault (328,550 notes) two cold indexes
// side by side took 1.33 ms of CPU a note from the 85,000th note to the
// 196,000th with it, and 0.97 ms from the 94,000th to the 246,000th with a
// headroom of 3 and GOGC=200 (the whole vault in 9 min 48 s and 329 s of
// CPU, at the price of a peak of ~5 GB of anonymous memory instead of ~2).
// So past largeHeap the limit leaves largeHeadroom times the live heap and
// GOGC is raised to match until the pass ends (a GOGC set higher is kept).
// Below it (obsidian-hub, and its 10× vault for most of its cold index,
// where the larger headroom cost ~550 MB more peak memory and saved no
// measurable CPU) nothing changes.
const (
	startupMemoryLimit = 105 << 20
	startupHeadroom    = 1.5
	largeHeap          = 512 << 20
	largeHeadroom      = 3
	largeGOGC          = 200
)

// limitStartupMemory applies startupMemoryLimit and returns the function
// that restores the previous limit.
func limitStartupMemory() (restore func()) {
	prev := debug.SetMemoryLimit(-1)
	if prev <= startupMemoryLimit {
		return func() {}
	}
	debug.SetMemoryLimit(startupMemoryLimit)
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		limit := int64(startupMemoryLimit)
		gogc, raised := 0, false
		defer func() {
			if raised {
				debug.SetGCPercent(gogc)
			}
		}()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			metrics.Read(live)
			if live[0].Value.Kind() != metrics.KindUint64 {
				continue
			}
			heap, headroom := live[0].Value.Uint64(), startupHeadroom
			if heap > largeHeap {
				headroom = largeHeadroom
				if !raised {
					// Never lower a GOGC set higher, or turn it back on.
					if gogc = debug.SetGCPercent(largeGOGC); gogc < 0 || gogc > largeGOGC {
						debug.SetGCPercent(gogc)
					}
					raised = true
				}
			}
			if want := int64(float64(heap) * headroom); want > limit {
				limit = min(want, prev)
				debug.SetMemoryLimit(limit)
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		debug.SetMemoryLimit(prev)
	}
}

// settleMemory hands what a large pass allocated back to the system when
// the daemon turns idle: the Go heap's free pages, and the pages of the
// index's memory-mapped files, which stay in the page cache (index.Store.
// TrimMapped). Called after the start-up pass and after a large embedding
// backlog, never per saved note.
func (d *Daemon) settleMemory() {
	// Two collections: the first moves what sync.Pools hold (the pass's
	// note and segment builders) to their victim caches, the second frees
	// it, and only then are its pages free to be returned.
	runtime.GC()
	debug.FreeOSMemory()
	n, err := d.store.TrimMapped()
	if err != nil {
		d.log.Debug("could not release the index's mapped pages", "err", err)
		return
	}
	d.log.Debug("released the index's mapped pages", "mapped_mb", n>>20)
}

// Badger's table builders outlive the pass that used them (index.Store.
// BuildersHeld): once it has let go of the last, what they held is garbage,
// but an idle daemon allocates nothing and would not collect it before the
// runtime's forced collection two minutes later, nor return its pages then
// (the heap's goal is twice the live heap). builderPoll and builderWait
// bound the wait for them.
const (
	builderPoll = 250 * time.Millisecond
	builderWait = 30 * time.Second
)

// settleBuilders waits until Badger holds no table builder, at most
// builderWait, and then settles the memory again, if it held any when
// called. It is called after settleMemory on the start-up pass's memory.
func (d *Daemon) settleBuilders(ctx context.Context) {
	if d.store.BuildersHeld() == 0 {
		return
	}
	t := time.NewTicker(builderPoll)
	defer t.Stop()
	deadline := time.NewTimer(builderWait)
	defer deadline.Stop()
	for d.store.BuildersHeld() > 0 {
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-t.C:
		}
	}
	d.settleMemory()
}
