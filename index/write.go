package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/dgraph-io/badger/v4"

	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/segment"
)

// Op is one change to the index: Put stores a prepared document (replacing
// whatever the path held); Refresh rewrites the stat of an unchanged
// document (see Refresh); otherwise the document at Vault/Path is deleted.
type Op struct {
	Put     *Prepared
	Refresh *Document
	Vault   string
	Path    string
}

// Encode encodes p's records into the bytes Apply will store, so that the
// work is done off the write path (by ingestion's workers), and releases
// the chunk texts the encoded records now hold. A document that cannot be
// encoded becomes the record of a failed file.
func (p *Prepared) Encode() {
	if err := p.encode(); err != nil {
		p.markFailed("cannot encode: " + err.Error())
	}
	p.dropText()
}

// Graph is the note's part of the entity graph, for ingestion to add a
// model's entities to before the document is written.
func (p *Prepared) Graph() *graph.Record { return &p.graph }

// entry is one staged key write; del means delete.
type entry struct {
	key, val []byte
	del      bool
}

// change is what the in-memory index must do once a transaction commits.
type change struct {
	refresh  bool // nothing: only a stored record's stat changed
	id       DocID
	vault    string
	path     string
	oldOK    bool // the path held a searchable document
	oldFail  bool // the path held a failed document
	oldStats Stats
	put      *Prepared
}

// txnFill is the share of Badger's transaction limits a batch may use
// before it is committed and a new transaction started.
const txnFill = 0.8

// maxDocumentBytes is the most index data (its records' keys and values)
// one document may have; a larger one is recorded as failed ("too large to
// index in one transaction"). It is what Badger's transaction limit was,
// less txnFill, when it was the bound (15 % of the 16 MB memtables of
// earlier builds): Badger counts a value of valueThreshold bytes or more —
// nearly all of a document's, which go to the value log — as its key and a
// 12-byte pointer (estimate), so its limit no longer bounds a document, and
// the memtables could be made smaller without making documents fail.
var maxDocumentBytes = func() int64 {
	limit := int64(15 * (16 << 20) / 100) // Badger's with 16 MB memtables
	return int64(float64(limit) * txnFill)
}()

// Apply writes ops in as few transactions as fit Badger's limits. Each
// document's whole update lands in exactly one transaction. A document too
// large for one transaction is recorded as failed instead. Apply returns
// after the last commit; on error the ops committed so far stay committed.
func (s *Store) Apply(ops []Op) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	maxSize := int64(float64(s.db.MaxBatchSize()) * txnFill)
	maxCount := int64(float64(s.db.MaxBatchCount()) * txnFill)

	txn := s.db.NewTransaction(true)
	defer func() { txn.Discard() }()
	var pending []change
	var size, count int64 // as Badger counts them (estimate)
	var data int64        // the records' bytes, for the room on disk
	stats, vcounts := s.stats, maps.Clone(s.vcounts)
	if vcounts == nil {
		vcounts = make(map[string]VaultCount)
	}
	commit := func() error {
		if err := s.disk.check(data); err != nil {
			return err
		}
		b, _ := json.Marshal(stats)
		if err := txn.Set(keyStats, b); err != nil {
			return fmt.Errorf("index: stats: %w", err)
		}
		b, _ = json.Marshal(vcounts)
		if err := txn.Set(keyVaultCounts, b); err != nil {
			return fmt.Errorf("index: vault counts: %w", err)
		}
		ids := make([]DocID, 0, len(pending))
		for _, ch := range pending {
			if !ch.refresh { // a refreshed stat changes nothing the segments hold
				ids = append(ids, ch.id)
			}
		}
		if err := journal(txn, s.seq+1, ids); err != nil {
			return fmt.Errorf("index: journal: %w", err)
		}
		if err := txn.Commit(); err != nil {
			return fmt.Errorf("index: commit: %w", err)
		}
		s.seq++
		s.stats, s.vcounts = stats, vcounts
		s.applyMem(pending, s.seq, maps.Clone(vcounts))
		vcounts = maps.Clone(vcounts)
		pending, size, count, data = pending[:0], 0, 0, 0
		txn = s.db.NewTransaction(true)
		return nil
	}
	for _, op := range ops {
		ents, ch, err := s.stage(txn, op)
		if err != nil {
			return err
		}
		sz, n, raw := estimate(ents)
		if (raw > maxDocumentBytes || sz > maxSize || n > maxCount) && op.Put != nil && op.Put.Doc.Status == StatusOK {
			reason := fmt.Sprintf("too large to index in one transaction (%.1f MB of index data; limit %.1f MB)",
				float64(raw)/(1<<20), float64(maxDocumentBytes)/(1<<20))
			op.Put.markFailed(reason) // in place, so the caller sees the outcome
			ents, ch, err = s.stage(txn, op)
			if err != nil {
				return err
			}
			sz, n, raw = estimate(ents)
		}
		// A transaction holds its records until it commits: no more of
		// them than one document may have, as when that was Badger's limit.
		if count > 0 && (size+sz > maxSize || count+n > maxCount || data+raw > maxDocumentBytes) {
			if err := commit(); err != nil {
				return err
			}
			// Re-stage: the reads of stage must see the new transaction.
			if ents, ch, err = s.stage(txn, op); err != nil {
				return err
			}
			sz, n, raw = estimate(ents)
		}
		for _, e := range ents {
			if e.del {
				err = txn.Delete(e.key)
			} else {
				err = txn.Set(e.key, e.val)
			}
			if err != nil {
				return fmt.Errorf("index: stage %s: %w", op.describe(), err)
			}
		}
		size, count, data = size+sz, count+n, data+raw
		stats.add(oldStats(ch), -1)
		stats.add(ch.put.stats(), 1)
		addStats(vcounts, ch.vault, oldStats(ch), -1)
		addStats(vcounts, ch.vault, ch.put.stats(), 1)
		pending = append(pending, ch)
	}
	if len(pending) == 0 {
		return nil
	}
	return commit()
}

// MaxDocumentBytes is about the most index data one document may have: a
// document is written in one transaction, and one bigger than this is
// recorded as failed ("too large to index in one transaction").
func (s *Store) MaxDocumentBytes() int64 { return maxDocumentBytes }

func (op Op) describe() string {
	if op.Put != nil {
		return op.Put.Doc.Vault + "/" + op.Put.Doc.Path
	}
	return op.Vault + "/" + op.Path
}

// estimate is what ents count against a transaction's limits as Badger
// counts them (Txn.checkSize: a value of valueThreshold bytes or more goes
// to the value log and counts as a 12-byte pointer), and raw their index
// data, keys and values, which maxDocumentBytes bounds.
func estimate(ents []entry) (size, count, raw int64) {
	for _, e := range ents {
		k, v := int64(len(e.key)), int64(len(e.val))
		raw += k + v + 12
		if v >= valueThreshold {
			v = 12
		}
		size += k + v + 2 + 10
	}
	return size, int64(len(ents)), raw
}

func oldStats(ch change) Stats {
	switch {
	case ch.oldOK:
		return ch.oldStats
	case ch.oldFail:
		return Stats{Failed: 1}
	}
	return Stats{}
}

// stage computes the key writes of one op, reading the current state
// through txn (which sees the batch's own earlier writes).
func (s *Store) stage(txn *badger.Txn, op Op) ([]entry, change, error) {
	if op.Refresh != nil {
		return s.stageRefresh(txn, op.Refresh)
	}
	vault, path := op.Vault, op.Path
	if op.Put != nil {
		vault, path = op.Put.Doc.Vault, op.Put.Doc.Path
	}
	ch := change{vault: vault, path: path, put: op.Put}
	id, exists, err := s.lookupID(txn, vault, path)
	if err != nil {
		return nil, ch, err
	}
	ch.id = id
	var ents []entry
	if exists {
		old, err := getDoc(txn, id)
		if err != nil {
			return nil, ch, err
		}
		if old != nil {
			if old.Chunks+old.Parents > 0 {
				ents = append(ents, entry{key: docChildPrefix(nsChunk, id), del: true})
			}
			switch old.Status {
			case StatusOK:
				ents = append(ents, entry{key: forwardKey(id), del: true}, entry{key: docChildPrefix(nsGraph, id), del: true},
					entry{key: docChildPrefix(nsNames, id), del: true})
				ch.oldOK = true
				ch.oldStats = Stats{Docs: 1, Chunks: int64(old.Chunks)}
			default:
				ents = append(ents, entry{key: failedKey(id), del: true})
				ch.oldFail = true
			}
		}
	}
	if op.Put == nil {
		if exists {
			ents = append(ents, entry{key: docKey(id), del: true}, entry{key: pathKey(vault, path), del: true})
		}
		return ents, ch, nil
	}
	p := op.Put
	p.Doc.ID = id
	if err := p.encode(); err != nil {
		return nil, ch, err
	}
	ents = append(ents, entry{key: pathKey(vault, path), val: pathValue(id, &p.Doc)}, entry{key: docKey(id), val: p.enc.doc})
	if p.Doc.Status != StatusOK {
		ents = append(ents, entry{key: failedKey(id), val: failedValue(vault, path)})
		return ents, ch, nil
	}
	for i := range p.Chunks {
		p.Chunks[i].Ref = ChunkRef{Doc: id, Ord: uint32(i)}
	}
	if p.enc.chunks != nil {
		ents = append(ents, entry{key: docChildPrefix(nsChunk, id), val: p.enc.chunks})
	}
	p.note.ID = uint64(id)
	segment.SetNoteID(p.enc.fwd, uint64(id)) // in place: a re-stage sets the same id
	ents = append(ents, entry{key: forwardKey(id), val: p.enc.fwd}, entry{key: docChildPrefix(nsGraph, id), val: p.enc.graph},
		entry{key: docChildPrefix(nsNames, id), val: appendStrings(nil, p.graph.Names)})
	return ents, ch, nil
}

// stageRefresh writes the stat fields of d (Size, ModTime, Inode, CTime,
// StatAt) into the stored record of d's path, if that record still holds
// the bytes d says (the same hash); nothing else changes.
func (s *Store) stageRefresh(txn *badger.Txn, d *Document) ([]entry, change, error) {
	ch := change{vault: d.Vault, path: d.Path, refresh: true}
	id, exists, err := s.lookupID(txn, d.Vault, d.Path)
	if err != nil || !exists {
		return nil, ch, err
	}
	ch.id = id
	old, err := getDoc(txn, id)
	if err != nil || old == nil || old.Hash != d.Hash || d.Hash == "" {
		return nil, ch, err
	}
	old.Size, old.ModTime, old.Inode, old.CTime, old.StatAt = d.Size, d.ModTime, d.Inode, d.CTime, d.StatAt
	b, err := json.Marshal(old)
	if err != nil {
		return nil, ch, err
	}
	ents := []entry{{key: docKey(id), val: b}, {key: pathKey(d.Vault, d.Path), val: pathValue(id, old)}}
	if old.Status == StatusOK {
		// A store written before the names were kept apart gets them.
		names, err := missingNames(txn, id)
		if err != nil {
			return nil, ch, err
		}
		if names != nil {
			ents = append(ents, entry{key: docChildPrefix(nsNames, id), val: names})
		}
	}
	return ents, ch, nil
}

// missingNames returns the n/ record of document id from its graph record
// when it has none (nil when it has one).
func missingNames(txn *badger.Txn, id DocID) ([]byte, error) {
	if _, err := txn.Get(docChildPrefix(nsNames, id)); err == nil || !errors.Is(err, badger.ErrKeyNotFound) {
		return nil, err
	}
	var g graph.Record
	if err := getRecord(txn, docChildPrefix(nsGraph, id), func(v []byte) error { return decodeGraph(v, &g) }); err != nil {
		return nil, err
	}
	return appendStrings(nil, g.Names), nil
}

// lookupID finds the id of vault/path, or derives a fresh one that no other
// document uses.
func (s *Store) lookupID(txn *badger.Txn, vault, path string) (DocID, bool, error) {
	it, err := txn.Get(pathKey(vault, path))
	switch {
	case err == nil:
		var id DocID
		err = it.Value(func(v []byte) error {
			var err error
			id, _, _, err = parsePathValue(v)
			return err
		})
		return id, err == nil, err
	case !errors.Is(err, badger.ErrKeyNotFound):
		return 0, false, err
	}
	for probe := 0; ; probe++ {
		id := docIDFor(vault, path, probe)
		d, err := getDoc(txn, id)
		if err != nil {
			return 0, false, err
		}
		if d == nil {
			return id, false, nil
		}
	}
}

func getDoc(txn *badger.Txn, id DocID) (*Document, error) {
	it, err := txn.Get(docKey(id))
	if errors.Is(err, badger.ErrKeyNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var d Document
	if err := it.Value(func(v []byte) error { return json.Unmarshal(v, &d) }); err != nil {
		return nil, fmt.Errorf("index: document %s: %w", id, err)
	}
	d.ID = id
	return &d, nil
}

// applyMem brings memory in line with a committed transaction, sequence
// number seq, after which the vaults count counts: the graph, failed
// documents and counts, then the segments, then the vector backlogs.
func (s *Store) applyMem(chs []change, seq uint64, counts map[string]VaultCount) {
	var dels []uint64
	var puts []*segment.Note
	var gone, added []uint64 // chunk texts removed and written
	var replaced []uint64
	for _, ch := range chs {
		if ch.oldOK {
			replaced = append(replaced, uint64(ch.id))
		}
	}
	s.lex.Reveal(replaced) // in bulk mode: so the view below holds them
	v := s.view()
	for _, ch := range chs {
		if !ch.oldOK {
			continue
		}
		if r, ok := v.Find(uint64(ch.id)); ok {
			for ord := range v.ChunkCount(r) {
				if c, ok := v.Chunk(r, uint32(ord)); ok {
					gone = append(gone, c.Hash)
				}
			}
		}
	}
	v.Release()
	m := s.mem
	m.tmu.Lock()
	m.counts = counts
	for _, ch := range chs {
		if ch.refresh {
			continue
		}
		delete(m.failed, ch.id)
		if p := ch.put; p != nil && p.Doc.Status != StatusOK {
			m.failed[ch.id] = failedDoc{ch.vault, ch.path}
		}
	}
	m.tmu.Unlock()
	m.wantGraph() // the graph is loaded (graph_load.go)
	m.mu.Lock()
	for _, ch := range chs {
		if ch.refresh {
			continue
		}
		if ch.oldOK {
			m.graph.Remove(graph.DocID(ch.id))
		}
		p := ch.put
		switch {
		case p == nil || p.Doc.Status != StatusOK:
			dels = append(dels, uint64(ch.id))
		default:
			m.graph.Add(graph.DocID(ch.id), ch.vault, ch.path, p.Doc.Title, len(p.Chunks), &p.graph)
			puts = append(puts, p.note)
			for _, c := range p.note.Chunks {
				added = append(added, c.Hash)
			}
		}
	}
	m.publishGraph()
	m.mu.Unlock()
	s.lex.Apply(seq, dels, puts)
	s.kickWarm()
	s.coverChanges(gone, added)
}
