package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"sort"

	"github.com/dgraph-io/badger/v4"

	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/segment"
)

// Check verifies the store's invariants: every searchable document has its
// postings block and exactly its chunk and parent records, its graph
// record's mentions and facts lie in its chunks, no record belongs to a
// document that does not exist, the stored statistics equal
// the sum over documents, the segments agree with Badger, and what is kept
// as documents are written (per-vault counts, the graph's sizes, vector
// backlogs) equals a recount. It
// returns the first violation found.
func (s *Store) Check() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var sum Stats
	vaults := make(map[string]VaultCount)
	err := s.db.View(func(txn *badger.Txn) error {
		docs := make(map[DocID]*Document)
		if err := iterate(txn, nsPrefix(nsDoc), true, func(k, v []byte) error {
			var d Document
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("document %x: %w", k, err)
			}
			d.ID = idFromKey(k)
			docs[d.ID] = &d
			if d.Status == StatusOK {
				addStats(vaults, d.Vault, Stats{Docs: 1, Chunks: int64(d.Chunks)}, 1)
			} else {
				addStats(vaults, d.Vault, Stats{Failed: 1}, 1)
			}
			return nil
		}); err != nil {
			return err
		}
		counts := map[byte]map[DocID]int{nsGraph: {}, nsNames: {}, nsFailed: {}}
		for ns, m := range counts {
			if err := iterate(txn, nsPrefix(ns), false, func(k, _ []byte) error {
				m[idFromKey(k)]++
				return nil
			}); err != nil {
				return err
			}
		}
		// The chunks records and their own counts, each record decoded.
		records, chunks, parents := map[DocID]int{}, map[DocID]int{}, map[DocID]int{}
		if err := iterate(txn, nsPrefix(nsChunk), true, func(k, v []byte) error {
			id := idFromKey(k)
			cr, err := parseChunks(v)
			if err == nil {
				_, _, err = cr.all()
			}
			if err != nil {
				return fmt.Errorf("chunks record of %s: %w", id, err)
			}
			records[id]++
			chunks[id], parents[id] = cr.chunks, cr.parents
			return nil
		}); err != nil {
			return err
		}
		fwds := make(map[DocID]*segment.Note)
		if err := iterate(txn, nsPrefix(nsForward), true, func(k, v []byte) error {
			n, err := segment.DecodeNote(v)
			if err != nil {
				return fmt.Errorf("note record of %x: %w", k, err)
			}
			if n.ID != uint64(idFromKey(k)) {
				return fmt.Errorf("note record of %x has id %x", k, n.ID)
			}
			fwds[idFromKey(k)] = n
			return nil
		}); err != nil {
			return err
		}
		for id, d := range docs {
			f := fwds[id]
			switch d.Status {
			case StatusOK:
				if f == nil {
					return fmt.Errorf("%s/%s: no note record", d.Vault, d.Path)
				}
				if counts[nsGraph][id] != 1 || counts[nsNames][id] != 1 || counts[nsFailed][id] != 0 {
					return fmt.Errorf("%s/%s: no graph or names record, or listed as failed", d.Vault, d.Path)
				}
				if len(f.Chunks) != d.Chunks || chunks[id] != d.Chunks || parents[id] != d.Parents ||
					records[id] != min(1, d.Chunks+d.Parents) {
					return fmt.Errorf("%s/%s: document says %d chunks %d parents; found %d note chunks, %d chunk and %d parent records (%d chunks records)",
						d.Vault, d.Path, d.Chunks, d.Parents, len(f.Chunks), chunks[id], parents[id], records[id])
				}
				sum.add(Stats{Docs: 1, Chunks: int64(d.Chunks), Langs: 1 << f.Lang}, 1)
			default:
				if f != nil || records[id] > 0 || counts[nsGraph][id] > 0 || counts[nsNames][id] > 0 {
					return fmt.Errorf("%s/%s: failed document still has chunks or postings", d.Vault, d.Path)
				}
				if counts[nsFailed][id] != 1 {
					return fmt.Errorf("%s/%s: failed document not in the failed list", d.Vault, d.Path)
				}
				sum.Failed++
			}
			if got, ok, err := s.lookupID(txn, d.Vault, d.Path); err != nil || !ok || got != id {
				return fmt.Errorf("%s/%s: path index does not point at %s", d.Vault, d.Path, id)
			}
			if err := getRecord(txn, pathKey(d.Vault, d.Path), func(v []byte) error {
				if len(v) > 8 && !bytes.Equal(v, pathValue(id, d)) {
					return errors.New("the stat beside the path differs from the document's")
				}
				return nil
			}); err != nil {
				return fmt.Errorf("%s/%s: %w", d.Vault, d.Path, err)
			}
		}
		if err := iterate(txn, nsPrefix(nsGraph), true, func(k, v []byte) error {
			if d := docs[idFromKey(k)]; d != nil {
				var g graph.Record
				if err := decodeGraph(v, &g); err != nil {
					return fmt.Errorf("%s/%s: graph record: %w", d.Vault, d.Path, err)
				}
				if err := g.Check(d.Chunks); err != nil {
					return fmt.Errorf("%s/%s: %w", d.Vault, d.Path, err)
				}
				if err := getRecord(txn, docChildPrefix(nsNames, d.ID), func(v []byte) error {
					if want := appendStrings(nil, g.Names); !bytes.Equal(v, want) {
						return errors.New("names record differs from the graph record's names")
					}
					return nil
				}); err != nil {
					return fmt.Errorf("%s/%s: %w", d.Vault, d.Path, err)
				}
				return nil
			}
			return nil // an orphan, reported below
		}); err != nil {
			return err
		}
		for ns, m := range counts {
			for id := range m {
				if docs[id] == nil {
					return fmt.Errorf("orphan %c/ records of missing document %s", ns, id)
				}
			}
		}
		for id := range fwds {
			if docs[id] == nil {
				return fmt.Errorf("orphan postings block of missing document %s", id)
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("index check: %w", err)
	}
	// The language set only grows: every note's language must be in it.
	st := s.stats
	if sum.Langs&^st.Langs == 0 {
		st.Langs = sum.Langs
	}
	if sum != st {
		return fmt.Errorf("index check: stored statistics %+v differ from the documents' sum %+v", s.stats, sum)
	}
	if gs := s.CheckGraph(); gs.Problem != "" {
		return fmt.Errorf("index check: graph: %s", gs.Problem)
	}
	if err := s.checkSegments(sum); err != nil {
		return err
	}
	return s.checkKept(vaults)
}

// checkKept compares what is kept as documents are written with a recount:
// the per-vault counts (committed and in memory), the failed documents'
// paths, and each vector space's backlog, which must be exactly the live
// texts without a vector.
func (s *Store) checkKept(vaults map[string]VaultCount) error {
	m := s.mem
	m.tmu.Lock()
	failed := maps.Clone(m.failed)
	m.tmu.Unlock()
	for id, f := range failed {
		if d, err := s.document(id); err != nil || d == nil || d.Vault != f.vault || f.path != "" && d.Path != f.path {
			return fmt.Errorf("index check: failed document %s is listed as %s/%s", id, f.vault, f.path)
		}
	}
	v := s.view()
	defer v.Release()
	m.tmu.Lock()
	counts := m.counts
	m.tmu.Unlock()
	if !maps.Equal(s.vcounts, vaults) || !maps.Equal(counts, vaults) {
		return fmt.Errorf("index check: per-vault counts %v (in memory %v) differ from the documents' %v", s.vcounts, counts, vaults)
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	for id, c := range m.covers {
		var bad error
		v.EachChunk(func(_ uint64, _ uint32, h uint64) bool {
			_, have := c.have[h]
			_, missing := c.missing[h]
			if have == missing {
				bad = fmt.Errorf("index check: vector space %016x: live text %016x has a vector: %v, is in the backlog: %v", id, h, have, missing)
			}
			return bad == nil
		})
		if bad != nil {
			return bad
		}
		for h := range c.missing {
			if !v.HasHash(h) {
				return fmt.Errorf("index check: vector space %016x: backlog holds text %016x of no chunk", id, h)
			}
		}
	}
	return nil
}

// checkSegments compares the lexical segments with the stored documents:
// the same notes, each with its chunks.
func (s *Store) checkSegments(sum Stats) error {
	v := s.view()
	defer v.Release()
	st := v.Stats()
	if st.Chunks != sum.Chunks || st.Notes != sum.Docs {
		return fmt.Errorf("index check: the segments hold %d chunks of %d notes, Badger %d of %d",
			st.Chunks, st.Notes, sum.Chunks, sum.Docs)
	}
	var bad error
	v.EachNote(func(r segment.Ref, id uint64, vault, path string) bool {
		d, err := s.Document(vault, path)
		switch {
		case err != nil:
			bad = err
		case d == nil || d.Status != StatusOK || uint64(d.ID) != id:
			bad = fmt.Errorf("index check: the segments hold %s/%s, which is not a searchable document", vault, path)
		case d.Chunks != v.ChunkCount(r):
			bad = fmt.Errorf("index check: the segments hold %d chunks of %s/%s, Badger %d", v.ChunkCount(r), vault, path, d.Chunks)
		}
		return bad == nil
	})
	return bad
}

// Dump writes a canonical, id-free description of everything stored:
// documents by vault and path with their chunks, parents and postings, and
// the statistics. Two stores built from the same files dump identically
// whatever order they were built in; tests compare dumps.
func (s *Store) Dump(w io.Writer) error {
	type dumpDoc struct {
		Doc     Document
		Chunks  []Chunk
		Parents []Parent
		Note    *segment.Note
		Graph   json.RawMessage
	}
	var out []dumpDoc
	err := s.db.View(func(txn *badger.Txn) error {
		return iterate(txn, nsPrefix(nsDoc), true, func(k, v []byte) error {
			var d dumpDoc
			if err := json.Unmarshal(v, &d.Doc); err != nil {
				return err
			}
			id := idFromKey(k)
			if err := docChunks(txn, id, func(cr chunkRecords) (err error) {
				d.Chunks, d.Parents, err = cr.all()
				return err
			}); err != nil {
				return fmt.Errorf("chunks record of %s: %w", id, err)
			}
			if it, err := txn.Get(forwardKey(id)); err == nil {
				if err := it.Value(func(v []byte) error {
					n, err := segment.DecodeNote(v)
					d.Note = n
					return err
				}); err != nil {
					return fmt.Errorf("note record of %s: %w", id, err)
				}
				d.Note.ID = 0
			}
			if it, err := txn.Get(docChildPrefix(nsGraph, id)); err == nil {
				var g graph.Record
				if err := it.Value(func(v []byte) error { return decodeGraph(v, &g) }); err != nil {
					return fmt.Errorf("graph of %s: %w", id, err)
				}
				if d.Graph, err = json.Marshal(&g); err != nil {
					return err
				}
			}
			out = append(out, d)
			return nil
		})
	})
	if err != nil {
		return err
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i].Doc, out[j].Doc
		if a.Vault != b.Vault {
			return a.Vault < b.Vault
		}
		return a.Path < b.Path
	})
	for _, d := range out {
		fmt.Fprintf(w, "doc %s/%s %s %s chunks=%d parents=%d title=%q tags=%q err=%q\n",
			d.Doc.Vault, d.Doc.Path, d.Doc.Status, d.Doc.Hash, d.Doc.Chunks, d.Doc.Parents, d.Doc.Title, d.Doc.Tags, d.Doc.Error)
		for _, c := range d.Chunks {
			fmt.Fprintf(w, "  chunk %d p%d L%d-L%d %d-%d %q %s\n", c.Ref.Ord, c.Parent, c.LineStart, c.LineEnd, c.Start, c.End, c.Heading, c.Hash)
		}
		for i, p := range d.Parents {
			fmt.Fprintf(w, "  parent %d L%d-L%d %q\n", i, p.LineStart, p.LineEnd, p.Heading)
		}
		if n := d.Note; n != nil {
			for _, t := range n.Terms {
				fmt.Fprintf(w, "  term %s %v %v\n", t.Text, t.Note, t.Postings)
			}
			fmt.Fprintf(w, "  note fields %v lang %d chunks %v headings %q anchors %v\n", n.FieldLen, n.Lang, n.Chunks, n.Headings, n.Anchors)
		}
		fmt.Fprintf(w, "  graph %s\n", d.Graph)
	}
	st := s.Stats()
	fmt.Fprintf(w, "stats %+v\n", st)
	return nil
}

// getRecord decodes the value of key with decode.
func getRecord(txn *badger.Txn, key []byte, decode func([]byte) error) error {
	it, err := txn.Get(key)
	if err != nil {
		return fmt.Errorf("%q: %w", key, err)
	}
	if err := it.Value(decode); err != nil {
		return fmt.Errorf("%q: %w", key, err)
	}
	return nil
}
