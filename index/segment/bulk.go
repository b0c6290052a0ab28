package segment

import "slices"

// Bulk mode: a pass that adds many notes collects them into one builder
// (Set.pend) instead of making a segment per Apply.

// BeginBulk starts bulk mode, for a pass that adds many notes (a cold
// index): until the matching EndBulk, Apply collects the notes it is given
// into one builder and makes a segment of about BulkBytes at a time, instead
// of a small segment per call that the background loop would merge again
// and again. Removals still take effect at once, so no search ever sees a
// stale copy of a note; an added note is searchable once its segment is
// made (at the latest at EndBulk). Calls nest.
func (s *Set) BeginBulk() {
	s.bmu.Lock()
	if s.bulk == 0 {
		s.bulkMade = 0
	}
	s.bulk++
	s.bmu.Unlock()
}

// bulkRamp: the first segment of a bulk pass is 2^bulkRamp times smaller
// than BulkBytes, each one after twice the one before, up to BulkBytes. A
// user who starts ragd on a new vault and asks at once finds the first
// notes after a fraction of a second instead of nothing until a whole
// segment's worth (the whole of a small vault) is indexed; the few small
// segments this adds are merged at the first flush. No segment of the ramp
// is smaller than bulkFloor (or BulkBytes, if that is smaller).
const (
	bulkRamp  = 5
	bulkFloor = 256 << 10
)

// bulkLimit is the size at which the bulk builder is made into a segment
// (caller holds bmu).
func (s *Set) bulkLimit() int64 {
	if s.bulkMade >= bulkRamp {
		return s.opt.BulkBytes
	}
	return max(s.opt.BulkBytes>>(bulkRamp-s.bulkMade), min(s.opt.BulkBytes, bulkFloor))
}

// EndBulk ends a BeginBulk: the notes collected so far are made into a
// segment and become searchable.
func (s *Set) EndBulk() {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	if s.bulk > 0 {
		s.bulk--
	}
	s.finishPending()
	s.used = nil
}

// Reveal makes the notes collected in bulk mode searchable now if they
// include any of ids: the store calls it before it reads what a change
// replaces (a pass that changes a note twice; rare).
func (s *Set) Reveal(ids []uint64) {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	if s.pend != nil && slices.ContainsFunc(ids, s.pend.has) {
		s.finishPending()
	}
}

// RevealAll makes the notes collected in bulk mode searchable now: the
// store calls it before it walks every live chunk (a vector space's
// backlog), which must see every note committed.
func (s *Set) RevealAll() {
	s.bmu.Lock()
	defer s.bmu.Unlock()
	s.finishPending()
}

// applyBulk is Apply in bulk mode (caller holds bmu).
func (s *Set) applyBulk(seq uint64, deletes []uint64, puts []*Note) {
	if s.pend != nil && slices.ContainsFunc(puts, func(n *Note) bool { return s.pend.has(n.ID) }) {
		// A note replaced before its segment was made: make it now, so the
		// older copy is deleted below like any other.
		s.finishPending()
	}
	s.mu.Lock()
	v := s.cur.clone()
	v.delete(withPuts(deletes, puts))
	if s.pend != nil {
		for _, id := range deletes {
			s.pend.delete(id)
		}
	}
	if len(puts) > 0 && s.pend == nil {
		s.pend, s.pending, s.pendFrom = newBuilder(), true, seq
		if s.used != nil {
			s.pend, s.used = s.used.reuse(), nil
		}
	}
	s.advance(seq)
	s.publish(v)
	s.mu.Unlock()
	for _, n := range puts {
		s.pend.add(n)
	}
	if s.pend != nil && s.pend.size >= s.bulkLimit() {
		s.finishPending()
		s.bulkMade++
	}
}

// finishPending makes the bulk builder's notes into an in-memory segment
// and publishes it (caller holds bmu).
func (s *Set) finishPending() {
	if s.pend == nil {
		return
	}
	s.pend.w.yield = s.opt.Yield
	b, del := s.pend.finish()
	if s.bulk > 0 {
		s.used = s.pend
	}
	s.pend = nil
	seg := mustOpen(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.cur.clone()
	s.addMemory(v, seg, del)
	s.pending = false
	s.publish(v)
}
