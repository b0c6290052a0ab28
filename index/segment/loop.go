package segment

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// loop merges and flushes in the background until Close.
func (s *Set) loop() {
	defer s.done.Done()
	t := time.NewTicker(max(s.opt.FlushAfter/4, time.Second))
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case done := <-s.flushes:
			err := s.flush(false)
			s.mu.Lock()
			s.failed = err
			s.mu.Unlock()
			if err == nil {
				// The merges the flush made due, before the caller hears of
				// it: a caller that hands memory back to the system after
				// Flush (the daemon after its start-up pass) would otherwise
				// see a merge allocate it again at once.
				s.maintain()
			}
			done <- err
		case <-s.wake:
		case <-t.C:
		}
		s.maintain()
	}
}

// maintain does the merges and flushes that are due, one at a time.
func (s *Set) maintain() {
	for {
		select {
		case <-s.stop:
			return
		default:
		}
		s.mu.Lock()
		nmem, size, idle := len(s.mem), s.memSize, time.Since(s.last)
		s.mu.Unlock()
		var err error
		switch {
		case size >= s.opt.FlushBytes || nmem > 0 && idle >= s.opt.FlushAfter:
			err = s.flush(false)
		case nmem >= memMaxSegments && s.memTierDue():
			err = s.mergeMemory()
		default:
			var did bool
			did, err = s.mergeDisk()
			if !did && err == nil {
				return
			}
		}
		s.mu.Lock()
		s.failed = err
		s.mu.Unlock()
		if err != nil {
			s.opt.Logger.Warn("index segments: background merge failed; will retry", "err", err)
			return
		}
	}
}

// snapshot returns the current view (acquired), the states of the
// segments pick selects (called with mu held) and the last sequence
// number.
func (s *Set) snapshot(pick func(*segState) bool) (*View, []*segState, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.cur
	v.acquire()
	var out []*segState
	for _, ss := range v.segs {
		if pick(ss) {
			out = append(out, ss)
		}
	}
	return v, out, s.segmentsSeq()
}

// segmentsSeq is the last sequence number up to which every change is in
// the segments (caller holds mu): the last applied, or the one before the
// first change whose notes the bulk builder still holds.
func (s *Set) segmentsSeq() uint64 {
	if !s.pending {
		return s.seq
	}
	if s.pendFrom == 0 {
		return 0
	}
	return min(s.seq, s.pendFrom-1)
}

func inputsOf(sts []*segState) []mergeInput {
	ins := make([]mergeInput, len(sts))
	for i, ss := range sts {
		ins[i] = mergeInput{ss.seg, ss.del}
	}
	return ins
}

// mergeMemory merges in-memory segments of one size tier into one
// in-memory segment (tiers of memTierBytes × MergeFactor^n): each change is
// copied a logarithmic number of times before it is flushed, not once per
// merge.
func (s *Set) mergeMemory() error {
	v, mem, _ := s.snapshot(func(ss *segState) bool { return s.mem[ss.seg] })
	defer v.Release()
	ins := s.pickTier(mem, memTierBytes, memMergeAt)
	if len(ins) < 2 {
		return nil
	}
	seg, err := Open(merge(inputsOf(ins), s.opt.Yield))
	if err != nil {
		return err
	}
	s.replace(ins, seg, true)
	return nil
}

// flush merges the in-memory segments into a segment file and writes a
// manifest covering every change applied before it started. final is set
// by Close (the loop has stopped).
func (s *Set) flush(final bool) error {
	v, ins, seq := s.snapshot(func(ss *segState) bool { return s.mem[ss.seg] })
	defer v.Release()
	if len(ins) == 0 {
		if final && seq > s.flushedSeq() {
			return s.writeManifest(seq, nil)
		}
		return nil
	}
	var write func(io.Writer) error
	if len(ins) == 1 && ins[0].del == nil {
		write = func(f io.Writer) error { // one segment and nothing deleted: its bytes are the file
			_, err := f.Write(ins[0].seg.b)
			return err
		}
	} else {
		write = mergeWriter(inputsOf(ins), s.opt.Yield).writeTo
	}
	seg, err := s.writeSegment(write)
	if err != nil {
		return err
	}
	s.replace(ins, seg, false)
	return s.writeManifest(seq, nil)
}

func (s *Set) flushedSeq() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flushed
}

// mergeDisk merges segment files of one size tier (or rewrites one with
// many deletions); false when none is due.
func (s *Set) mergeDisk() (bool, error) {
	v, disk, _ := s.snapshot(func(ss *segState) bool { return !s.mem[ss.seg] })
	defer v.Release()
	ins := s.pickTier(disk, s.opt.FlushBytes, s.opt.MergeFactor)
	if len(ins) == 0 {
		ins = s.pickPurge(disk)
	}
	if len(ins) == 0 {
		return false, nil
	}
	seg, err := s.writeSegment(mergeWriter(inputsOf(ins), s.opt.Yield).writeTo)
	if err != nil {
		return true, err
	}
	s.replace(ins, seg, false)
	var gone []string
	for _, ss := range ins {
		gone = append(gone, ss.seg.name)
	}
	return true, s.writeManifest(s.flushedSeq(), gone)
}

// pickTier chooses segments to merge: the f smallest of the smallest size
// tier holding f (tiers are base × f^n bytes), within MaxSegmentBytes.
func (s *Set) pickTier(segs []*segState, base int64, f int) []*segState {
	tier := func(ss *segState) int {
		r := float64(ss.seg.size) / float64(base)
		if r <= 1 {
			return 0
		}
		return int(math.Log(r) / math.Log(float64(f)))
	}
	byTier := map[int][]*segState{}
	for _, ss := range segs {
		byTier[tier(ss)] = append(byTier[tier(ss)], ss)
	}
	tiers := make([]int, 0, len(byTier))
	for t := range byTier {
		tiers = append(tiers, t)
	}
	slices.Sort(tiers)
	for _, t := range tiers {
		ss := byTier[t]
		if len(ss) < f {
			continue
		}
		slices.SortStableFunc(ss, func(a, b *segState) int { return int(a.seg.size - b.seg.size) })
		pick := ss[:f]
		total := int64(0)
		for _, p := range pick {
			total += p.seg.size
		}
		if total <= s.opt.MaxSegmentBytes {
			return pick
		}
	}
	return nil
}

// pickPurge chooses a segment file of which a third is deleted notes, to
// rewrite without them.
func (s *Set) pickPurge(disk []*segState) []*segState {
	for _, ss := range disk {
		if ss.seg.notes > 0 && (ss.seg.notes-ss.live)*3 >= ss.seg.notes {
			return []*segState{ss}
		}
	}
	return nil
}

// replace publishes seg in place of the segments ins, carrying over the
// deletions made since ins were snapshotted.
func (s *Set) replace(ins []*segState, seg *Segment, memory bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.cur.clone()
	gone := make(map[*Segment]*segState, len(ins))
	for _, ss := range ins {
		gone[ss.seg] = ss
	}
	ns := &segState{seg: seg, live: seg.notes}
	out := v.segs[:0:0]
	placed := false
	for _, cur := range v.segs {
		old, ok := gone[cur.seg]
		if !ok {
			out = append(out, cur)
			continue
		}
		// Notes deleted after the snapshot: delete them in seg.
		for i := uint32(0); i < cur.seg.notes; i++ {
			if cur.deleted(i) && !old.deleted(i) {
				if j, ok := seg.FindNote(cur.seg.NoteID(i)); ok && !ns.deleted(j) {
					if ns.del == nil {
						ns.del, ns.delDF = bitset(nil).clone(seg.notes), make(map[uint32]uint32)
					}
					ns.del.set(j)
					ns.live--
					seg.forward(j, func(t, df uint32) { ns.delDF[t] += df })
				}
			}
		}
		if !placed {
			out = append(out, ns)
			placed = true
		}
		if s.mem[cur.seg] {
			delete(s.mem, cur.seg)
			s.memSize -= cur.seg.size
		}
	}
	v.segs = out
	if memory {
		s.mem[seg] = true
		s.memSize += seg.size
	}
	s.publish(v)
}

// writeSegment writes a new segment file (durably) with write and maps
// it.
func (s *Set) writeSegment(write func(io.Writer) error) (*Segment, error) {
	s.mu.Lock()
	s.nextID++
	name := fmt.Sprintf("%08d.seg", s.nextID)
	s.mu.Unlock()
	path := filepath.Join(s.opt.Dir, name)
	if err := writeFileWith(path, write); err != nil {
		return nil, err
	}
	seg, err := openFile(path)
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	return seg, nil
}

// openFile maps and opens a segment file.
func openFile(path string) (*Segment, error) {
	b, release, err := mapFile(path)
	if err != nil {
		return nil, err
	}
	seg, err := Open(b)
	if err != nil {
		release()
		return nil, err
	}
	seg.name, seg.release = filepath.Base(path), release
	return seg, nil
}

// close unmaps a mapped segment (its last view is gone).
func (seg *Segment) close() {
	if seg.release != nil {
		seg.release()
		seg.release = nil
	}
}

// memTierDue reports whether some tier of in-memory segments is full.
func (s *Set) memTierDue() bool {
	v, mem, _ := s.snapshot(func(ss *segState) bool { return s.mem[ss.seg] })
	defer v.Release()
	return len(s.pickTier(mem, memTierBytes, memMergeAt)) > 0
}
