package index

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"

	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/segment"
)

// The entity graph is built from the records after Open has returned, so
// that the daemon listens at once and its start-up pass walks the vault
// meanwhile. Every note's names are loaded at once (lexical search
// resolves link targets through them); the relations, stems and facts only
// when something wants them — a graph query, the graph or link channel,
// the writer, or Store.LoadGraph, which the daemon calls when its start-up
// pass is over — so that the pass, and with it the first answer after a
// restart, does not share the CPU and the collector with them.

// namesLoadHook, if set (by tests), runs before the graph's load reads
// anything.
var namesLoadHook atomic.Pointer[func()]

// errStopped ends a graph load cut short by Close.
var errStopped = errors.New("index: store closing")

// loadGraph builds the entity graph of the records as txn sees them and
// the notes of the segments' view v (the same state: Open takes both before
// any write), in two steps. First every note's names (n/, small records in
// Badger's tree): then the graph is published and mem.namesReady closed,
// so that lexical search resolves link targets. Then, once mem.loadNow is
// closed, the relations, stems and facts of the g/ records, added in
// batches under the lock; then mem.ready is closed, whatever happened.
// Notes without a names record (a store written before they were kept) are
// added whole in the second step, and namesReady waits for it; so does the
// whole load with counts, to which every searchable note is then added (a
// store written before the per-vault counts were kept). An error is
// returned, and reported as the graph's problem.
func (s *Store) loadGraph(txn *badger.Txn, v *segment.View, seq uint64, counts map[string]VaultCount) error {
	defer txn.Discard()
	defer v.Release()
	if h := namesLoadHook.Load(); h != nil {
		(*h)()
	}
	m := s.mem
	g := graph.New()
	stopped := func() bool {
		select {
		case <-s.stopGC:
			return true
		default:
			return false
		}
	}
	named := int64(0)
	err := iterate(txn, nsPrefix(nsNames), true, func(k, val []byte) error {
		if stopped() {
			return errStopped
		}
		id := idFromKey(k)
		r, ok := v.Find(uint64(id))
		if !ok {
			return nil
		}
		rd := &reader{b: val}
		names := rd.strings()
		if err := rd.done(); err != nil {
			return fmt.Errorf("index: names of %s: %w", id, err)
		}
		in := v.Info(r, false)
		g.AddNames(graph.DocID(id), in.Vault, in.Path, in.Title, v.ChunkCount(r), names)
		named++
		return nil
	})
	published := false
	publish := func() {
		m.mu.Lock()
		m.graph = g
		m.mu.Unlock()
		close(m.namesReady)
		s.names.Store(nil) // resolveAnchor reads the graph from now on
		published = true
	}
	if err == nil && counts == nil && named == v.Stats().Notes {
		m.namesWhole.Store(true)
		publish()
		// No write reaches the graph before the load ends: its names are
		// the store's at Open, whose change is s.seq (no write before
		// Open returns). Kept for the next open, unless they already are.
		if serr := s.saveNames(seq); serr != nil {
			s.log.Warn("could not save the names snapshot", "err", serr)
		}
		select {
		case <-m.loadNow:
		case <-s.stopGC:
			err = errStopped
		}
	}
	if err == nil {
		type pending struct {
			id  graph.DocID
			r   segment.Ref
			rec graph.Record
		}
		// The batch's records are decoded from copies of the values in
		// buf, their strings sharing its bytes, and reused batch after
		// batch: the graph copies what it keeps, so loading allocates
		// little beyond the graph itself.
		var batch []pending
		var buf []byte
		flush := func() {
			// Only this goroutine writes the graph until ready is
			// closed: it may read it without the lock.
			if published {
				m.mu.Lock()
			}
			for i := range batch {
				p := &batch[i]
				if g.Has(p.id) {
					g.AddRelations(p.id, &p.rec)
				} else {
					in := v.Info(p.r, false)
					g.Add(p.id, in.Vault, in.Path, in.Title, v.ChunkCount(p.r), &p.rec)
				}
			}
			if published {
				m.mu.Unlock()
			}
			batch, buf = batch[:0], buf[:0]
		}
		err = iterate(txn, nsPrefix(nsGraph), true, func(k, val []byte) error {
			if stopped() {
				return errStopped
			}
			id := idFromKey(k)
			r, ok := v.Find(uint64(id))
			if !ok {
				return nil
			}
			if len(batch) < cap(batch) {
				batch = batch[:len(batch)+1]
			} else {
				batch = append(batch, pending{})
			}
			p := &batch[len(batch)-1]
			p.id, p.r = graph.DocID(id), r
			at := len(buf)
			buf = append(buf, val...)
			if err := decodeGraphShared(buf[at:], &p.rec); err != nil {
				return fmt.Errorf("index: graph of %s: %w", id, err)
			}
			if counts != nil {
				addStats(counts, v.Info(r, false).Vault, Stats{Docs: 1, Chunks: int64(v.ChunkCount(r))}, 1)
			}
			if len(batch) == graphLoadBatch {
				flush()
			}
			return nil
		})
		flush()
		if err == nil {
			// The graph's lists grew as the batches came: cut them to size.
			if published {
				m.mu.Lock()
			}
			g.Trim()
			if published {
				m.mu.Unlock()
			}
		}
	}
	if !published {
		m.namesWhole.Store(err == nil)
		publish()
		if err == nil {
			if serr := s.saveNames(seq); serr != nil {
				s.log.Warn("could not save the names snapshot", "err", serr)
			}
		}
	}
	m.publishGraph() // no change reaches the graph before ready is closed
	close(m.ready)
	if err != nil && !errors.Is(err, errStopped) {
		problem := "could not load the graph: " + err.Error()
		s.graphProblem.Store(&problem)
		s.log.Error("could not load the entity graph", "err", err)
		return err
	}
	return nil
}

// graphLoadBatch is how many notes' relations the load adds per turn of
// the lock: searches resolving names wait at most that long.
const graphLoadBatch = 256

// earlyNames is the names snapshot while it serves: from Open until the
// graph's names are loaded (names_snapshot.go); nil otherwise.
func (s *Store) earlyNames() *namesSnap {
	select {
	case <-s.mem.namesReady:
		return nil
	default:
		return s.names.Load()
	}
}

// rlockNames waits until every note's names are loaded and takes mem.mu
// for reading: enough for graph.Graph.Resolve.
func (m *memIndex) rlockNames() {
	<-m.namesReady
	m.mu.RLock()
}

// wantGraph has the graph's relations loaded, if they are not, and waits
// for them.
func (m *memIndex) wantGraph() {
	m.loadOnce.Do(func() { close(m.loadNow) })
	<-m.ready
}

// rlockGraph waits until the graph is loaded and takes mem.mu for reading.
func (m *memIndex) rlockGraph() {
	m.wantGraph()
	m.mu.RLock()
}

// GraphLoaded is closed once the entity graph is loaded (or its load has
// failed or been cut short by Close); it does not start the load of its
// relations (LoadGraph does). Loading reads every g/ record, whose pages of
// the value log then stay mapped: trim them after it.
func (s *Store) GraphLoaded() <-chan struct{} { return s.mem.ready }

// LoadGraph starts loading the graph's relations, if nothing has yet, and
// returns at once.
func (s *Store) LoadGraph() { s.mem.loadOnce.Do(func() { close(s.mem.loadNow) }) }

// TrimGraph cuts the entity graph's arrays to what they hold
// (graph.Graph.Trim), after a pass that added many notes: the room they
// grew into as notes came is given back. It holds the graph's lock while
// it copies them (tens of milliseconds for a graph of 65,000 notes).
func (s *Store) TrimGraph() {
	s.mem.mu.Lock()
	s.mem.graph.Trim()
	s.mem.mu.Unlock()
}
