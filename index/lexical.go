package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/dgraph-io/badger/v4"

	"github.com/ragd/ragd/index/segment"
)

// The lexical index lives in postings segments (index/segment) beside
// Badger, which stays the source of truth: every note's segment record is
// also its f/ value. Every write transaction appends to a journal —
// j/<seq:8> → the ids of the documents it changed — and the segment set
// records, in its manifest, the sequence number up to which its flushed
// segments are complete. Opening replays the journal past that point (work
// proportional to what changed since the last flush, not to the corpus);
// the set's background loop flushes and, once the manifest is durable,
// the journal up to it is dropped. A missing or damaged segment directory
// is rebuilt from the f/ records.

const nsJournal = 'j'

var keySeq = []byte("m/seq")

func journalKey(seq uint64) []byte {
	k := make([]byte, 10)
	k[0], k[1] = nsJournal, '/'
	binary.BigEndian.PutUint64(k[2:], seq)
	return k
}

// replayBatch is how many note records a replay or rebuild applies at a
// time (one in-memory segment each).
var replayBatch = 2048

// TuneSegments, when set, adjusts the options of the segment set of every
// store opened after. It is a test hook, set before any store is opened:
// the crash trials (make torture) make segments tiny, so that flushes and
// merges run all the time.
var TuneSegments func(*segment.Options)

// openLexical opens the segment set in dir and brings it up to the store's
// journal. The set is rebuilt from the note records when rebuild is asked
// for (a new schema), when its files are damaged, when it is ahead of the
// store, and when it covers nothing (no manifest, or one written before a
// rebuild finished) although the store has committed changes: the journal
// holds only the changes since the last flush, so replaying it would leave
// out every note flushed before.
func (s *Store) openLexical(dir string, rebuild bool) error {
	opts := segment.Options{Dir: dir, Logger: s.log, OnFlush: s.dropJournal, Yield: s.yield}
	if TuneSegments != nil {
		TuneSegments(&opts)
	}
	if err := s.readSeq(); err != nil {
		return err
	}
	if rebuild {
		if err := segment.Reset(dir); err != nil {
			return fmt.Errorf("index: reset segments: %w", err)
		}
	}
	set, seq, err := segment.OpenSet(opts)
	if err == nil && !rebuild && (seq > s.seq || seq == 0 && s.seq > 0) {
		s.log.Warn("the lexical index segments do not match the store; rebuilding them from it",
			"segments", seq, "store", s.seq)
		set.Close()
		err = fmt.Errorf("%w: segments at change %d, store at %d", segment.ErrCorrupt, seq, s.seq)
	} else if errors.Is(err, segment.ErrCorrupt) {
		s.log.Warn("the lexical index segments are damaged; rebuilding them from the store", "err", err)
	}
	if errors.Is(err, segment.ErrCorrupt) {
		if err := segment.Reset(dir); err != nil {
			return fmt.Errorf("index: reset segments: %w", err)
		}
		set, _, err = segment.OpenSet(opts)
		rebuild = true
	}
	if err != nil {
		return fmt.Errorf("index: open segments: %w", err)
	}
	s.lex = set
	if rebuild {
		return s.rebuildLexical()
	}
	return s.replayJournal(seq)
}

// readSeq reads the store's journal position (0 for a store that has
// committed nothing).
func (s *Store) readSeq() error {
	err := s.db.View(func(txn *badger.Txn) error {
		it, err := txn.Get(keySeq)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		return it.Value(func(v []byte) error {
			if len(v) == 8 {
				s.seq = binary.BigEndian.Uint64(v)
			}
			return nil
		})
	})
	if err != nil {
		return fmt.Errorf("index: read journal position: %w", err)
	}
	return nil
}

// rebuildLexical adds every searchable document's record to an empty set.
// Every batch but the last is applied at change 0, so that a flush in the
// middle of the rebuild writes a manifest covering nothing: a crash there
// leaves a set the next open rebuilds again, never one it takes as whole.
// The last batch brings the set to the store's change.
func (s *Store) rebuildLexical() error {
	var batch []*segment.Note
	err := s.db.View(func(txn *badger.Txn) error {
		return iterate(txn, nsPrefix(nsForward), true, func(k, v []byte) error {
			n, err := segment.DecodeNote(v)
			if err != nil {
				return fmt.Errorf("index: note record %x: %w", k, err)
			}
			n.ID = uint64(idFromKey(k))
			batch = append(batch, n)
			if len(batch) == replayBatch {
				s.lex.Apply(0, nil, batch)
				batch = nil
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	s.lex.Apply(s.seq, nil, batch)
	return nil
}

// replayJournal re-applies the changes committed after the segments' seq.
func (s *Store) replayJournal(from uint64) error {
	ids := map[DocID]bool{}
	err := s.db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: nsPrefix(nsJournal), PrefetchValues: true})
		defer it.Close()
		for it.Seek(journalKey(from + 1)); it.Valid(); it.Next() {
			if err := it.Item().Value(func(v []byte) error {
				for len(v) >= 8 {
					ids[DocID(binary.BigEndian.Uint64(v))] = true
					v = v[8:]
				}
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil || len(ids) == 0 {
		return err
	}
	var dels []uint64
	var puts []*segment.Note
	err = s.db.View(func(txn *badger.Txn) error {
		for id := range ids {
			dels = append(dels, uint64(id))
			it, err := txn.Get(forwardKey(id))
			if errors.Is(err, badger.ErrKeyNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if err := it.Value(func(v []byte) error {
				n, err := segment.DecodeNote(v)
				if err != nil {
					return fmt.Errorf("index: note record %s: %w", id, err)
				}
				n.ID = uint64(id)
				puts = append(puts, n)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.lex.Apply(s.seq, dels, nil)
	for i := 0; i < len(puts); i += replayBatch {
		s.lex.Apply(s.seq, nil, puts[i:min(i+replayBatch, len(puts))])
	}
	s.log.Info("lexical index caught up with the store", "documents", len(ids))
	return nil
}

// dropJournal deletes the journal up to seq, which the segments now hold
// durably. It runs on the segment set's background loop.
func (s *Store) dropJournal(seq uint64) {
	for {
		var keys [][]byte
		err := s.db.View(func(txn *badger.Txn) error {
			it := txn.NewIterator(badger.IteratorOptions{Prefix: nsPrefix(nsJournal)})
			defer it.Close()
			for it.Rewind(); it.Valid() && len(keys) < 10000; it.Next() {
				k := it.Item().KeyCopy(nil)
				if binary.BigEndian.Uint64(k[2:]) > seq {
					break
				}
				keys = append(keys, k)
			}
			return nil
		})
		if err != nil || len(keys) == 0 {
			if err != nil {
				s.log.Warn("could not drop the lexical journal", "err", err)
			}
			return
		}
		if err := s.db.Update(func(txn *badger.Txn) error {
			for _, k := range keys {
				if err := txn.Delete(k); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			s.log.Warn("could not drop the lexical journal", "err", err)
			return
		}
	}
}

// journal stages the journal entry of a transaction that changed ids.
func journal(txn *badger.Txn, seq uint64, ids []DocID) error {
	v := make([]byte, 0, 8*len(ids))
	for _, id := range ids {
		v = binary.BigEndian.AppendUint64(v, uint64(id))
	}
	if err := txn.Set(journalKey(seq), v); err != nil {
		return err
	}
	return txn.Set(keySeq, binary.BigEndian.AppendUint64(nil, seq))
}

func segmentsDir(dir string) string { return filepath.Join(dir, "segments") }

// resolveAnchor maps an anchor target key ("vault\x00name") to the notes it
// names.
func (s *Store) resolveAnchor(key string) []uint64 {
	vault, name, ok := strings.Cut(key, "\x00")
	if !ok {
		return nil
	}
	if snap := s.earlyNames(); snap != nil {
		return snap.resolve(vault, name)
	}
	s.mem.rlockNames()
	ids := s.mem.graph.Resolve(vault, name)
	s.mem.mu.RUnlock()
	out := make([]uint64, len(ids))
	for i, id := range ids {
		out[i] = uint64(id)
	}
	return out
}

// resolveGen is the generation of the graph's names for
// segment.Query.ResolveGen (never 0): resolveAnchor answers alike while
// it is the same.
func (s *Store) resolveGen() uint64 {
	if s.earlyNames() != nil {
		return namesGenSnapshot
	}
	s.mem.rlockNames()
	gen := s.mem.graph.NamesGen()
	s.mem.mu.RUnlock()
	return gen + 1
}

// Settle writes the lexical index's in-memory segments to disk after a
// large pass: memory returns to the heap's minimum and a restart replays
// nothing.
func (s *Store) Settle(ctx context.Context) error {
	if err := s.lex.Flush(ctx); err != nil {
		return fmt.Errorf("index: flush segments: %w", err)
	}
	s.kickWarm()
	return nil
}

// BeginBulk puts the lexical index in bulk mode for a pass that adds many
// notes (segment.Set.BeginBulk): notes are searchable in batches of a few
// thousand rather than at each commit, and building and merging segments
// costs a fraction; the analyzer keeps its workers' tables of tokens
// (analyze.Analyzer.KeepCaches). end, called once, makes every note
// searchable.
func (s *Store) BeginBulk() (end func()) {
	s.lex.BeginBulk()
	release := s.an.KeepCaches()
	return sync.OnceFunc(func() {
		s.lex.EndBulk()
		release()
	})
}
