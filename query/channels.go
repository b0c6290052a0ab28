package query

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
)

// wants reports whether the request lets channel ch run.
func (r Request) wants(ch string) bool {
	if len(r.Channels) > 0 {
		return slices.Contains(r.Channels, ch)
	}
	switch r.Mode {
	case ipc.ModeLexical:
		return ch == ipc.ChannelLexical
	case ipc.ModeVector:
		return ch == ipc.ChannelVector
	}
	return true
}

// retrieve runs the channels in parallel, each scoped inside its own
// candidate generation, and fuses their lists.
func (e *Engine) retrieve(ctx context.Context, plan Plan, req Request, filter index.Filter, resp *Response) ([]*cand, error) {
	opt := e.opt
	if req.Fusion != "" {
		opt.Fusion = req.Fusion
	}
	var weights [nChannels]float64
	run := [nChannels]bool{}
	explicit := len(req.Channels) > 0 || req.Mode == ipc.ModeLexical || req.Mode == ipc.ModeVector
	for i, ch := range channels {
		weights[i] = opt.weight(req, ch, plan.Text)
		// In hybrid mode a channel with weight 0 is off; a channel asked for
		// by name or mode runs whatever its default weight.
		run[i] = req.wants(ch) && (weights[i] > 0 || explicit)
		if run[i] && weights[i] <= 0 {
			weights[i] = 1
		}
	}
	text := plan.Text
	terms := e.Terms(text)
	depth := max(req.K, opt.Depth)
	if req.K > 0 && countTrue(run) == 1 && e.reranker == nil {
		depth = req.K // nothing to fuse or rerank: the channel's top k is the answer
	}
	var lists channelLists
	var wg sync.WaitGroup
	var mu sync.Mutex
	degrade := func(ch, why string) {
		mu.Lock()
		resp.Degraded = append(resp.Degraded, ch)
		resp.DegradedWhy = append(resp.DegradedWhy, why)
		mu.Unlock()
	}
	if i := channelIndex(ipc.ChannelVector); run[i] {
		if e.embedder == nil {
			why := "semantic search is not configured"
			if e.embedErr != nil {
				if w := e.embedErr(); w != "" {
					why = w
				}
			}
			degrade(ipc.ChannelVector, why)
			run[i] = false
		} else if text != "" {
			wg.Add(1)
			go func() {
				defer wg.Done()
				t0 := time.Now()
				q, err := e.embedder.EmbedQuery(ctx, text)
				resp.EmbedTime = time.Since(t0)
				if err != nil {
					degrade(ipc.ChannelVector, "embedder: "+err.Error())
					return
				}
				// Chunks, several per note: depth notes need more chunks.
				hs, err := e.ix.VectorSearch(e.embedder.Signature(), q, 3*depth, filter)
				if err != nil {
					why := err.Error()
					if errors.Is(err, index.ErrNoVectors) {
						why = "no vectors for the configured embedder yet (embedding in progress)"
					}
					degrade(ipc.ChannelVector, why)
					return
				}
				lists.vec = hs
			}()
		}
	}
	rel := relationOf(text)
	if i := channelIndex(ipc.ChannelLexical); run[i] && len(terms) > 0 {
		// Alone, the lexical list is the fused one, and no note after
		// the reranker's head (or the first k) and a few spares is ever
		// looked at: the channel ranks depth notes but returns only those.
		keep := 0
		if countTrue(run) == 1 && (rel == relNone || run[chGraph]) {
			keep = req.K
			if e.reranker != nil && opt.RerankDepth > 0 && !req.NoRerank {
				keep = max(keep, opt.RerankDepth)
			}
			keep += spareNotes
		}
		var err error
		lists.lex, err = e.ix.SearchNotes(index.LexicalQuery{Text: text, Phrases: plan.Phrases, K: depth, Keep: keep,
			Passages: passagesKept, Filter: filter})
		if err != nil {
			wg.Wait()
			return nil, fmt.Errorf("lexical search: %w", err)
		}
	}
	var subjects []index.DocID
	if rel != relNone && run[chLex] && !run[chGraph] && len(terms) > 0 {
		// A relationship question: the notes linking to the notes it
		// names answer it (relation.go).
		lists.graph, subjects = e.ix.LinkSearch(terms, rel == relEmbeds, 3*depth, filter)
		if len(lists.graph) > 0 {
			weights[chGraph] = linkWeight * weights[chLex]
		}
	}
	if i := channelIndex(ipc.ChannelGraph); run[i] && len(terms) > 0 {
		lists.graph, _ = e.ix.GraphSearch(terms, 3*depth, filter)
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	lists.floor = e.SimilarityFloor()
	cands := fuse(opt, lists, weights)
	if len(subjects) > 0 {
		demote(cands, subjects)
	}
	cands = e.grounded(cands, lists.floor)
	resp.Grounded = len(cands) > 0
	return cands, nil
}

// passagesKept is how many matching chunks of a note beyond its best one
// the lexical channel returns: the alternatives a result may be cited by.
const passagesKept = ipc.MaxPassages - 1

func countTrue(bs [nChannels]bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// loadText loads the text (and page) of the candidates' cited passages;
// candidates whose passage vanished since ranking are dropped.
func (e *Engine) loadText(cs []*cand) ([]*cand, error) {
	refs := make([]index.ChunkRef, len(cs))
	for i := range refs {
		refs[i] = cs[i].hit.Ref
	}
	chunks, err := e.ix.Chunks(refs)
	if err != nil {
		return nil, fmt.Errorf("load chunk text: %w", err)
	}
	kept := cs[:0]
	for i, c := range cs {
		if chunks[i].Ref != c.hit.Ref {
			continue // the document changed after ranking; the hit is gone
		}
		c.text, c.page, c.textOK = chunks[i].Text, chunks[i].Page, true
		kept = append(kept, c)
	}
	return kept, nil
}
