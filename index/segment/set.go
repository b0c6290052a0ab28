package segment

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Options configure a Set.
type Options struct {
	// Dir holds the flushed segments and the manifest.
	Dir string
	// FlushBytes is the size of in-memory segments at which they are
	// merged and written to disk (default 8 MiB).
	FlushBytes int64
	// MergeFactor is how many segments of one size tier are merged into
	// one (default 8).
	MergeFactor int
	// MaxSegmentBytes bounds the size of a segment made by merging
	// (default 256 MiB).
	MaxSegmentBytes int64
	// FlushAfter flushes in-memory segments this long after the last
	// change even when they are small, so a restart replays little
	// (default 30 s).
	FlushAfter time.Duration
	// BulkBytes is about the size of the segments Apply makes in bulk mode
	// (BeginBulk; default 2 × FlushBytes).
	BulkBytes int64
	Logger    *slog.Logger
	// OnFlush is called from the background loop after a manifest covering
	// every change up to seq is durable (the store then drops its journal
	// up to seq).
	OnFlush func(seq uint64)
	// Yield, if set, is called every yieldSteps postings, terms and notes
	// while a large segment is laid out (a bulk segment made, segments
	// merged) and may block for a while: the daemon gives way to its
	// clients there (ipc.Listener.Yield). It is called with bmu held when
	// a bulk segment is made (only writers take bmu), never with mu.
	Yield func()
}

func (o *Options) setDefaults() {
	if o.FlushBytes <= 0 {
		o.FlushBytes = 8 << 20
	}
	if o.MergeFactor < 2 {
		o.MergeFactor = 8
	}
	if o.MaxSegmentBytes <= 0 {
		o.MaxSegmentBytes = 256 << 20
	}
	if o.FlushAfter <= 0 {
		o.FlushAfter = 30 * time.Second
	}
	if o.BulkBytes <= 0 {
		o.BulkBytes = 2 * o.FlushBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// In-memory segments (each Apply makes one) are left alone until there are
// memMaxSegments of them — a flush at FlushBytes usually comes first and
// copies each change once — then memMergeAt of one size tier (the first
// tier holds segments up to memTierBytes) are merged into one, so that a
// stream of small saves does not leave queries many tiny segments to read.
const (
	memMaxSegments = 24
	memMergeAt     = 8
	memTierBytes   = 64 << 10
)

// Set is the live lexical index. Apply and the background loop change it;
// any number of readers hold Views.
//
// Lock order: bmu, then mu; neither is held across I/O (segment files and
// the manifest are written outside them and published under mu).
type Set struct {
	opt Options

	// bmu serialises Apply, bulk mode and the bulk builder.
	bmu  sync.Mutex
	bulk int      // BeginBulk depth
	pend *builder // bulk mode: notes applied but in no segment yet (nil when none)
	used *builder // bulk mode: the last builder finished, whose lists the next reuses
	// bulkMade counts the segments made at their size since bulk mode
	// began (the first few are smaller: bulkLimit).
	bulkMade int

	mu       sync.Mutex
	pending  bool   // pend holds notes: changes from pendFrom on are not all in segments
	pendFrom uint64 // seq of the first change pend holds
	cur      *View
	seq      uint64 // last change applied
	mem      map[*Segment]bool
	memSize  int64
	last     time.Time // last change
	nextID   uint64    // next segment file number
	flushed  uint64    // seq of the last manifest
	failed   error     // last background failure (disk full, …), nil when healthy

	wake    chan struct{}
	flushes chan chan error // Flush's requests to the loop
	stop    chan struct{}
	done    sync.WaitGroup
}

// ErrClosed is returned by operations on a closed Set.
var ErrClosed = errors.New("segment: set closed")

// OpenSet opens the set in opts.Dir: reads the manifest and maps its
// segments. It returns the sequence number of the last change the
// segments hold; the caller replays later changes with Apply. A missing
// manifest gives an empty set at 0; a damaged one an error wrapping
// ErrCorrupt (the caller rebuilds from its source of truth after Reset).
func OpenSet(opts Options) (*Set, uint64, error) {
	opts.setDefaults()
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, 0, fmt.Errorf("segment: create %s: %w", opts.Dir, err)
	}
	s := &Set{opt: opts, mem: make(map[*Segment]bool), wake: make(chan struct{}, 1), stop: make(chan struct{}),
		flushes: make(chan chan error)}
	m, err := readManifest(opts.Dir)
	if err != nil {
		return nil, 0, err
	}
	v := &View{}
	for _, ms := range m.Segments {
		seg, err := openFile(filepath.Join(opts.Dir, ms.Name))
		if err != nil {
			for _, ss := range v.segs {
				ss.seg.close()
			}
			return nil, 0, fmt.Errorf("%w: segment %s: %v", ErrCorrupt, ms.Name, err)
		}
		ss := &segState{seg: seg, live: seg.notes}
		if len(ms.Deleted) > 0 {
			ss.del = bitset(nil).clone(seg.notes)
			for _, i := range ms.Deleted {
				if i < seg.notes {
					ss.del.set(i)
				}
			}
			ss.delDF = make(map[uint32]uint32)
			for _, i := range ms.Deleted {
				if i < seg.notes {
					ss.live--
					seg.forward(i, func(t, df uint32) { ss.delDF[t] += df })
				}
			}
		}
		v.segs = append(v.segs, ss)
	}
	v.stats = statsOf(v.segs)
	s.seq, s.flushed, s.nextID = m.Seq, m.Seq, m.Next
	s.publish(v)
	removeStrays(opts.Dir, m)
	s.done.Add(1)
	go s.loop()
	return s, m.Seq, nil
}

// statsOf computes a view's statistics from its segments and deletions.
func statsOf(segs []*segState) Stats {
	var st Stats
	for _, ss := range segs {
		st.addSegment(ss.seg, 1)
		for i := uint32(0); i < ss.seg.notes; i++ {
			if ss.deleted(i) {
				st.addNote(ss.seg, i, -1)
			}
		}
	}
	return st
}

// View returns the current view; Release it when done.
func (s *Set) View() *View {
	s.mu.Lock()
	v := s.cur
	v.acquire()
	s.mu.Unlock()
	return v
}

// publish makes v current (caller holds mu, or is Open). Every segment of
// v gains a reference; the previous view loses the set's.
func (s *Set) publish(v *View) {
	for _, ss := range v.segs {
		ss.seg.refs.Add(1)
	}
	v.refs.Store(1)
	v.onEnd = func(v *View) {
		for _, ss := range v.segs {
			if ss.seg.refs.Add(-1) == 0 {
				ss.seg.close()
			}
		}
	}
	old := s.cur
	s.cur = v
	if old != nil {
		old.Release()
	}
}

// Seq is the sequence number of the last change applied.
func (s *Set) Seq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seq
}

// Apply removes the notes with the given ids (and any older copy of the
// notes in puts) and adds puts as a new in-memory segment; seq is the
// change's sequence number in the store's journal. In bulk mode
// (BeginBulk) the removals are made at once but puts are collected into
// one larger segment, searchable when it is made (see BeginBulk).
func (s *Set) Apply(seq uint64, deletes []uint64, puts []*Note) {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	if s.bulk > 0 {
		s.applyBulk(seq, deletes, puts)
		return
	}
	var seg *Segment
	if len(puts) > 0 {
		seg = mustOpen(Build(puts))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.cur.clone()
	v.delete(withPuts(deletes, puts))
	if seg != nil {
		s.addMemory(v, seg, nil)
	}
	s.advance(seq)
	s.publish(v)
}

// withPuts returns deletes followed by the ids of puts.
func withPuts(deletes []uint64, puts []*Note) []uint64 {
	if len(puts) == 0 {
		return deletes
	}
	ids := make([]uint64, 0, len(deletes)+len(puts))
	ids = append(ids, deletes...)
	for _, n := range puts {
		ids = append(ids, n.ID)
	}
	return ids
}

func mustOpen(b []byte) *Segment {
	seg, err := Open(b)
	if err != nil {
		panic("segment: a freshly built segment does not open: " + err.Error())
	}
	return seg
}

// addMemory adds seg to v as an in-memory segment with its notes del
// deleted (caller holds mu).
func (s *Set) addMemory(v *View, seg *Segment, del []uint32) {
	ss := &segState{seg: seg, live: seg.notes}
	v.stats.addSegment(seg, 1)
	for _, i := range del {
		if i >= seg.notes || ss.deleted(i) {
			continue
		}
		if ss.del == nil {
			ss.del, ss.delDF = bitset(nil).clone(seg.notes), make(map[uint32]uint32)
		}
		ss.del.set(i)
		ss.live--
		seg.forward(i, func(t, df uint32) { ss.delDF[t] += df })
		v.stats.addNote(seg, i, -1)
	}
	v.segs = append(v.segs, ss)
	s.mem[seg] = true
	s.memSize += seg.size
	if len(s.mem) >= memMaxSegments || s.memSize >= s.opt.FlushBytes {
		s.signal()
	}
}

// advance records change seq as applied (caller holds mu).
func (s *Set) advance(seq uint64) {
	if seq > s.seq {
		s.seq = seq
	}
	s.last = time.Now()
}

func (s *Set) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// clone copies a view's structure (segment states are shared until
// changed).
func (v *View) clone() *View {
	c := &View{segs: make([]*segState, len(v.segs)), stats: v.stats}
	copy(c.segs, v.segs)
	return c
}

// delete marks the live copies of ids deleted, copying the states it
// changes.
func (v *View) delete(ids []uint64) {
	copied := make(map[int]bool)
	for _, id := range ids {
		for k := len(v.segs) - 1; k >= 0; k-- {
			ss := v.segs[k]
			i, ok := ss.seg.FindNote(id)
			if !ok || ss.deleted(i) {
				continue
			}
			if !copied[k] {
				c := &segState{seg: ss.seg, del: ss.del.clone(ss.seg.notes), live: ss.live,
					delDF: make(map[uint32]uint32, len(ss.delDF))}
				for t, n := range ss.delDF {
					c.delDF[t] = n
				}
				v.segs[k], ss, copied[k] = c, c, true
			}
			ss.del.set(i)
			ss.live--
			ss.seg.forward(i, func(t, df uint32) { ss.delDF[t] += df })
			v.stats.addNote(ss.seg, i, -1)
		}
	}
}

// Flush writes the in-memory segments to disk now (on the background
// loop) and returns when they are durable and the merges that made due
// are done: after a large pass, so the heap holds no index, a restart
// replays nothing, and no merge allocates right after the caller has
// handed memory back to the system.
func (s *Set) Flush(ctx context.Context) error {
	s.bmu.Lock()
	s.finishPending()
	s.bmu.Unlock()
	done := make(chan error, 1)
	select {
	case s.flushes <- done:
	case <-s.stop:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops the background loop, writes the in-memory segments to disk
// and unmaps everything once the last reader is done.
func (s *Set) Close() error {
	select {
	case <-s.stop:
		return nil
	default:
	}
	close(s.stop)
	s.done.Wait()
	s.bmu.Lock()
	s.finishPending()
	s.bmu.Unlock()
	err := s.flush(true)
	s.mu.Lock()
	old := s.cur
	s.cur = &View{}
	s.mu.Unlock()
	old.Release()
	return err
}

// Health reports the last background failure (nil when healthy).
func (s *Set) Health() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// Info describes the set for status and tests.
type Info struct {
	Segments, Memory int   // segments on disk, in memory
	DiskBytes        int64 // sizes of the segments on disk
	MemoryBytes      int64
	Seq, Flushed     uint64
	Deleted          int // deleted notes not yet merged away
}

// Info returns the set's shape.
func (s *Set) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := Info{Seq: s.seq, Flushed: s.flushed, MemoryBytes: s.memSize}
	for _, ss := range s.cur.segs {
		if s.mem[ss.seg] {
			in.Memory++
		} else {
			in.Segments++
			in.DiskBytes += ss.seg.size
		}
		in.Deleted += int(ss.seg.notes - ss.live)
	}
	return in
}
