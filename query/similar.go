package query

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/ipc"
)

// SimilarIndex is what "similar notes" needs beyond Index.
type SimilarIndex interface {
	ChunkVectors(vault, path string) ([][]float32, error)
	Backlinks(vault, note string) ([]graph.LinkRef, error)
	Links(vault, note string) ([]graph.LinkRef, error)
	Document(vault, path string) (*index.Document, error)
}

// SimilarNote is a note related to another, with the chunk that relates
// it best.
type SimilarNote struct {
	Vault, Path, Title string
	AbsPath            string // the file on disk ("" without WithVaults)
	Score              float64
	Best               index.Hit
	Why                []string // "vector", "links", "terms"
}

// ErrNotIndexed is returned by Similar for a path with no indexed
// document; it is an ipc.ErrNotFound.
var ErrNotIndexed = fmt.Errorf("not indexed: %w", ipc.ErrNotFound)

// maxSimilarChunks bounds how many of a long note's chunks are searched.
const maxSimilarChunks = 24

// Similar returns up to k notes related to vault/path, best first, never
// the note itself: notes whose chunks are nearest to its chunks' vectors,
// notes it links to or that link to it, and notes sharing its title and
// heading terms, fused by reciprocal rank. Without vectors the answer
// comes from links and terms and "vector" is reported degraded.
func (e *Engine) Similar(ctx context.Context, six SimilarIndex, vault, p string, k int) ([]SimilarNote, []string, error) {
	doc, err := six.Document(vault, p)
	if err != nil {
		return nil, nil, fmt.Errorf("similar: %w", err)
	}
	if doc == nil || doc.Status != index.StatusOK {
		return nil, nil, ipc.NotFound("%s is not indexed in vault %q: %w", p, vault, ErrNotIndexed)
	}
	self := func(v, q string) bool { return v == vault && q == p }
	notSelf := func(v, q string) bool { return !self(v, q) }
	type acc struct {
		note  SimilarNote
		score float64
	}
	notes := map[[2]string]*acc{}
	add := func(ch string, rank int, h index.Hit, weight float64) {
		key := [2]string{h.Vault, h.Path}
		a := notes[key]
		if a == nil {
			a = &acc{note: SimilarNote{Vault: h.Vault, Path: h.Path, Title: h.Title, Best: h}}
			notes[key] = a
		}
		if len(a.note.Why) == 0 || a.note.Why[len(a.note.Why)-1] != ch {
			a.note.Why = append(a.note.Why, ch)
			a.score += weight / (e.opt.RRFK + float64(rank))
		}
	}
	var degraded []string
	// Vector: each chunk's nearest chunks in other notes, best per note.
	if e.embedder == nil {
		degraded = append(degraded, ipc.ChannelVector)
	} else if vecs, err := six.ChunkVectors(vault, p); err != nil || len(vecs) == 0 {
		degraded = append(degraded, ipc.ChannelVector)
	} else {
		if len(vecs) > maxSimilarChunks {
			vecs = vecs[:maxSimilarChunks]
		}
		best := map[[2]string]index.Hit{}
		for _, v := range vecs {
			hs, err := e.ix.VectorSearch(e.embedder.Signature(), v, 4*k, notSelf)
			if err != nil {
				degraded = append(degraded, ipc.ChannelVector)
				break
			}
			for _, h := range hs {
				key := [2]string{h.Vault, h.Path}
				if b, ok := best[key]; !ok || h.Score > b.Score {
					best[key] = h
				}
			}
		}
		for rank, h := range rankHits(best) {
			add(ipc.ChannelVector, rank+1, h, 1)
		}
	}
	// Links, both directions.
	linked := map[[2]string]bool{}
	if out, err := six.Links(vault, p); err == nil {
		for _, l := range out {
			for _, r := range l.Resolved {
				linked[[2]string{vault, r}] = true
			}
		}
	}
	if in, err := six.Backlinks(vault, p); err == nil {
		for _, l := range in {
			linked[[2]string{l.Vault, l.Source}] = true
		}
	}
	delete(linked, [2]string{vault, p})
	// Terms: the note's title and headings as a BM25 query, one hit per note.
	terms := e.Terms(doc.Title + " " + strings.TrimSuffix(path.Base(p), path.Ext(p)))
	lex := e.ix.Search(terms, 8*k, notSelf)
	seen := map[[2]string]bool{}
	rank := 0
	var linkHits []index.Hit
	for _, h := range lex {
		key := [2]string{h.Vault, h.Path}
		if seen[key] {
			continue
		}
		seen[key] = true
		rank++
		add("terms", rank, h, 0.5)
		if linked[key] {
			linkHits = append(linkHits, h)
		}
	}
	// Linked notes the term search did not reach still count, ranked after.
	var unseen [][2]string
	for key := range linked {
		if !seen[key] {
			unseen = append(unseen, key)
		}
	}
	sort.Slice(unseen, func(i, j int) bool {
		return unseen[i][0] < unseen[j][0] || unseen[i][0] == unseen[j][0] && unseen[i][1] < unseen[j][1]
	})
	for _, key := range unseen {
		linkHits = append(linkHits, index.Hit{Vault: key[0], Path: key[1], Title: titleOf(key[1])})
	}
	for i, h := range linkHits {
		add("links", i+1, h, 1)
	}
	out := make([]SimilarNote, 0, len(notes))
	for _, a := range notes {
		a.note.Score = a.score
		a.note.AbsPath = e.absPath(a.note.Vault, a.note.Path)
		out = append(out, a.note)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Vault+"\x00"+out[i].Path < out[j].Vault+"\x00"+out[j].Path
	})
	if len(out) > k {
		out = out[:k]
	}
	return out, degraded, ctx.Err()
}

// rankHits orders per-note best hits by score.
func rankHits(m map[[2]string]index.Hit) []index.Hit {
	out := make([]index.Hit, 0, len(m))
	for _, h := range m {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Path < out[j].Path
	})
	return out
}

func titleOf(p string) string { return strings.TrimSuffix(path.Base(p), path.Ext(p)) }
