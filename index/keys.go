package index

import (
	"crypto/sha256"
	"encoding/binary"
)

// Key layout. Every key starts with a one-byte namespace and a '/' so the
// namespaces sort apart and can be iterated by prefix. Integers are
// big-endian so that keys sort numerically.
//
//	m/schema                     schema and analyzer versions (meta)
//	m/stats                      collection statistics (JSON Stats)
//	p/<vault>\x00<path>          → DocID (8 bytes) and the stat the file was read
//	                               with (stored.go): path index
//	d/<doc:8>                    → Document (JSON)
//	c/<doc:8>                    → the doc's chunks and parent sections, one
//	                               record (binary, codec_chunk.go); none for a
//	                               doc without either
//	g/<doc:8>                    → the doc's graph record (binary, codec_graph.go):
//	                               the names it answers to and its relations (index/graph)
//	n/<doc:8>                    → the names of the doc's graph record (binary
//	                               strings): loaded first at open (graph_load.go)
//	f/<doc:8>                    → the doc's segment record (segment.EncodeNote):
//	                               note fields, chunk doc values, terms with
//	                               their postings and positions, anchors
//	e/<doc:8>                    → vault: a failed document (listed at open
//	                               without reading every document record)
//	j/<seq:8>                    → ids of the documents a transaction changed:
//	                               the journal the segments replay (lexical.go)
//	m/seq                        the last journal sequence number
//
// A document's lexical record is one key (its update small and atomic);
// the term-major postings live in segment files beside Badger, derived
// from these records and rebuilt from them when missing (lexical.go).
//
// Elsewhere: m/vectors and v/<space:8><hash:8> (vectors.go), x/ and y/
// (the extraction and enrichment caches, cache.go), u/ (ingestion runs,
// runs.go).
const (
	nsMeta    = 'm'
	nsPath    = 'p'
	nsDoc     = 'd'
	nsChunk   = 'c'
	nsForward = 'f'
	nsGraph   = 'g'
	nsFailed  = 'e'
	nsNames   = 'n'
)

var (
	keySchema = []byte("m/schema")
	keyStats  = []byte("m/stats")
)

func nsPrefix(ns byte) []byte { return []byte{ns, '/'} }

func pathKey(vault, path string) []byte {
	k := make([]byte, 0, 3+len(vault)+len(path))
	k = append(k, nsPath, '/')
	k = append(k, vault...)
	k = append(k, 0)
	return append(k, path...)
}

func vaultPathPrefix(vault string) []byte {
	k := append([]byte{nsPath, '/'}, vault...)
	return append(k, 0)
}

func docKey(id DocID) []byte {
	k := make([]byte, 10)
	k[0], k[1] = nsDoc, '/'
	binary.BigEndian.PutUint64(k[2:], uint64(id))
	return k
}

func forwardKey(id DocID) []byte {
	k := docKey(id)
	k[0] = nsForward
	return k
}

// docChildPrefix is the prefix of all chunk (or parent) keys of a doc.
func failedKey(id DocID) []byte {
	k := docKey(id)
	k[0] = nsFailed
	return k
}

func docChildPrefix(ns byte, id DocID) []byte {
	k := docKey(id)
	k[0] = ns
	return k
}

func idFromKey(k []byte) DocID { return DocID(binary.BigEndian.Uint64(k[2:10])) }

// docIDFor derives the document id from vault and path: the first 8 bytes of
// SHA-256(vault \x00 path), with the probe number appended on collision.
func docIDFor(vault, path string, probe int) DocID {
	h := sha256.New()
	h.Write([]byte(vault))
	h.Write([]byte{0})
	h.Write([]byte(path))
	if probe > 0 {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(probe))
		h.Write(b[:])
	}
	var sum [32]byte
	return DocID(binary.BigEndian.Uint64(h.Sum(sum[:0])[:8]))
}
