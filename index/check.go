package index

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"github.com/dgraph-io/badger/v4"

	"github.com/ragd/ragd/index/graph"
)

// Check verifies the store's invariants: every searchable document has its
// postings block and exactly its chunk and parent records, its graph
// record's mentions and facts lie in its chunks, no record belongs to a
// document that does not exist, the stored statistics equal
// the sum over documents, and the in-memory postings agree with Badger. It
// returns the first violation found.
func (s *Store) Check() error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	var sum Stats
	err := s.db.View(func(txn *badger.Txn) error {
		docs := make(map[DocID]*Document)
		if err := iterate(txn, nsPrefix(nsDoc), true, func(k, v []byte) error {
			var d Document
			if err := json.Unmarshal(v, &d); err != nil {
				return fmt.Errorf("document %x: %w", k, err)
			}
			d.ID = idFromKey(k)
			docs[d.ID] = &d
			return nil
		}); err != nil {
			return err
		}
		counts := map[byte]map[DocID]int{nsChunk: {}, nsParent: {}, nsGraph: {}}
		for ns, m := range counts {
			if err := iterate(txn, nsPrefix(ns), false, func(k, _ []byte) error {
				m[idFromKey(k)]++
				return nil
			}); err != nil {
				return err
			}
		}
		fwds := make(map[DocID]*forward)
		if err := iterate(txn, nsPrefix(nsForward), true, func(k, v []byte) error {
			f, err := decodeForward(v)
			if err != nil {
				return fmt.Errorf("postings of %x: %w", k, err)
			}
			fwds[idFromKey(k)] = f
			return nil
		}); err != nil {
			return err
		}
		for id, d := range docs {
			f := fwds[id]
			switch d.Status {
			case StatusOK:
				if f == nil {
					return fmt.Errorf("%s/%s: no postings block", d.Vault, d.Path)
				}
				if counts[nsGraph][id] != 1 {
					return fmt.Errorf("%s/%s: no graph record", d.Vault, d.Path)
				}
				if len(f.chunks) != d.Chunks || counts[nsChunk][id] != d.Chunks || counts[nsParent][id] != d.Parents {
					return fmt.Errorf("%s/%s: document says %d chunks %d parents; found %d postings chunks, %d chunk and %d parent records",
						d.Vault, d.Path, d.Chunks, d.Parents, len(f.chunks), counts[nsChunk][id], counts[nsParent][id])
				}
				sum.add((&Prepared{Doc: *d, Chunks: make([]Chunk, d.Chunks), fwd: *f}).stats(), 1)
			default:
				if f != nil || counts[nsChunk][id] > 0 || counts[nsParent][id] > 0 || counts[nsGraph][id] > 0 {
					return fmt.Errorf("%s/%s: failed document still has chunks or postings", d.Vault, d.Path)
				}
				sum.Failed++
			}
			if got, ok, err := s.lookupID(txn, d.Vault, d.Path); err != nil || !ok || got != id {
				return fmt.Errorf("%s/%s: path index does not point at %s", d.Vault, d.Path, id)
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
	if sum != s.stats {
		return fmt.Errorf("index check: stored statistics %+v differ from the documents' sum %+v", s.stats, sum)
	}
	if gs := s.GraphStats(); gs.Problem != "" {
		return fmt.Errorf("index check: graph: %s", gs.Problem)
	}
	m := s.mem
	m.mu.RLock()
	defer m.mu.RUnlock()
	if int64(m.live) != sum.Chunks || int64(len(m.docs)) != sum.Docs {
		return fmt.Errorf("index check: memory holds %d chunks of %d documents, Badger %d of %d",
			m.live, len(m.docs), sum.Chunks, sum.Docs)
	}
	return nil
}

// Dump writes a canonical, id-free description of everything stored:
// documents by vault and path with their chunks, parents and postings, and
// the statistics. Two stores built from the same files dump identically
// whatever order they were built in; tests compare dumps.
func (s *Store) Dump(w io.Writer) error {
	type dumpDoc struct {
		Doc      Document
		Chunks   []Chunk
		Parents  []Parent
		Postings map[string][]posting
		Meta     []chunkMeta
		Headings [][]string
		Graph    json.RawMessage
	}
	var out []dumpDoc
	err := s.db.View(func(txn *badger.Txn) error {
		return iterate(txn, nsPrefix(nsDoc), true, func(k, v []byte) error {
			var d dumpDoc
			if err := json.Unmarshal(v, &d.Doc); err != nil {
				return err
			}
			id := idFromKey(k)
			for ord := 0; ord < d.Doc.Chunks; ord++ {
				var c Chunk
				if err := getRecord(txn, chunkKey(nsChunk, id, uint32(ord)), func(v []byte) error { return decodeChunk(v, &c) }); err != nil {
					return err
				}
				d.Chunks = append(d.Chunks, c)
			}
			for ord := 0; ord < d.Doc.Parents; ord++ {
				var p Parent
				if err := getRecord(txn, chunkKey(nsParent, id, uint32(ord)), func(v []byte) error { return decodeParent(v, &p) }); err != nil {
					return err
				}
				d.Parents = append(d.Parents, p)
			}
			f, err := getForward(txn, id)
			if err != nil {
				return err
			}
			if f != nil {
				d.Postings = make(map[string][]posting)
				for i, t := range f.terms {
					d.Postings[t] = f.postings[i]
				}
				d.Meta, d.Headings = f.chunks, f.headings
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
		terms := make([]string, 0, len(d.Postings))
		for t := range d.Postings {
			terms = append(terms, t)
		}
		sort.Strings(terms)
		for _, t := range terms {
			fmt.Fprintf(w, "  term %s %v\n", t, d.Postings[t])
		}
		fmt.Fprintf(w, "  meta %v headings %q\n  graph %s\n", d.Meta, d.Headings, d.Graph)
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
