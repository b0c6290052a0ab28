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
// one set with GOMEMLIMIT.
//
// Past midHeap of live heap the pass is paced by GOGC=startupGOGC instead
// (the same 1.5 times the live heap before each collection), with the
// limit following at midHeadroom times the live heap only as a backstop.
// A binding limit makes the runtime hand freed pages back to the system to
// stay under it, and the next allocations fault them in again: on the
// scale benchmark's 10× vault, whose live heap reaches ~400 MB, a cold
// index took ~400,000 page faults under the limit and ~330,000 paced by
// GOGC, ~4 % less CPU for ~6 % more peak memory (medians of 6 runs). A
// small vault's pass (obsidian-hub's live heap stays under ~80 MB) is
// paced by the limit alone, which keeps its peak lower.
//
// Past largeHeap of live heap — a vault of a few hundred thousand notes —
// that pacing made the collector's share of a cold index grow with the
// vault: on the scale benchmark's 50× vault (328,550 notes) two cold indexes
// side by side took 1.33 ms of CPU a note from the 85,000th note to the
// 196,000th with it, and 0.97 ms from the 94,000th to the 246,000th with a
// headroom of 3 and GOGC=200 (the whole vault in 9 min 48 s and 329 s of
// CPU, at the price of a peak of ~5 GB of anonymous memory instead of ~2).
// So past largeHeap the limit leaves largeHeadroom times the live heap and
// GOGC is largeGOGC until the pass ends. A GOGC set lower than startupGOGC
// (or higher than largeGOGC past largeHeap) is kept, and one turned off
// stays off.
const (
	startupMemoryLimit = 105 << 20
	startupHeadroom    = 1.5
	startupGOGC        = 50
	midHeap            = 128 << 20
	midHeadroom        = 1.75
	largeHeap          = 512 << 20
	largeHeadroom      = 3
	largeGOGC          = 200
)

// limitStartupMemory applies startupMemoryLimit and returns the function
// that restores the previous limit (and GOGC).
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
		p := pacer{gogc: currentGOGC()}
		defer p.restore()
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
			heap := float64(live[0].Value.Uint64())
			headroom := startupHeadroom
			switch {
			case heap > largeHeap:
				headroom = largeHeadroom
				p.set(largeGOGC, true)
			case heap > midHeap:
				headroom = midHeadroom
				p.set(startupGOGC, false)
			}
			if want := int64(heap * headroom); want > limit {
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

// pacer sets GOGC for the start-up pass and puts back the one it found.
type pacer struct {
	gogc int // the GOGC before the pass (-1: off)
	now  int // the GOGC set, 0 if none
}

// set makes GOGC v, or the one found if it is off, or (raise false) lower
// than v, or (raise true) higher.
func (p *pacer) set(v int, raise bool) {
	if p.gogc < 0 || !raise && p.gogc < v || raise && p.gogc > v {
		v = p.gogc
	}
	if v == p.now || p.now == 0 && v == p.gogc {
		return
	}
	debug.SetGCPercent(v)
	p.now = v
}

// currentGOGC is GOGC as the runtime has it (-1: off).
func currentGOGC() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 100
	}
	return int(int32(s[0].Value.Uint64()))
}

func (p *pacer) restore() {
	if p.now != 0 {
		debug.SetGCPercent(p.gogc)
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
