package uselite

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
)

// A batch is cut into chunks of consecutive sentences that run through
// the network together, their tokens stacked into one matrix: big enough
// for the matmuls to reuse each block of weights many times, small enough
// for the activations to stay in the L2 cache.
const (
	chunkTokens    = 256
	chunkSentences = 64
)

// getWorkspace takes a workspace from the model's pool, with room for
// par goroutines in the attention.
func (m *Model) getWorkspace(par int) *workspace {
	ws, _ := m.workspaces.Get().(*workspace)
	if ws == nil {
		ws = m.newWorkspace(chunkTokens, chunkSentences, par)
	}
	for len(ws.attn) < par {
		ws.attn = append(ws.attn, newAttentionScratch(m.maxTokens, m.maxHeadD))
	}
	return ws
}

// EmbedIDs returns one L2-normalised vector per sentence of token ids
// (ids from Tokenizer.Encode; only the first MaxTokens of each are read),
// using up to threads goroutines. It stops early, with ctx's error, when
// ctx is done.
func (m *Model) EmbedIDs(ctx context.Context, ids [][]int32, threads int) ([][]float32, error) {
	threads = max(threads, 1)
	clipped := make([][]int32, len(ids))
	for i, s := range ids {
		s = s[:min(len(s), m.maxTokens)]
		for _, id := range s {
			if id < 0 || int(id) >= m.vocab {
				return nil, fmt.Errorf("uselite: token id %d out of range [0, %d)", id, m.vocab)
			}
		}
		clipped[i] = s
	}
	out := make([][]float32, len(ids))
	flat := make([]float32, len(ids)*m.dim)
	for i := range out {
		out[i] = flat[i*m.dim : (i+1)*m.dim : (i+1)*m.dim]
	}
	chunks := makeChunks(clipped)

	// Few chunks: run them one after the other, each matmul split among
	// the threads. Many: one chunk per thread at a time.
	if threads == 1 || len(chunks) < 2*threads {
		ws := m.getWorkspace(threads)
		defer m.workspaces.Put(ws)
		for _, c := range chunks {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			m.forward(ws, clipped[c[0]:c[1]], out[c[0]:c[1]], threads)
		}
		return out, nil
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ws := m.getWorkspace(1)
			defer m.workspaces.Put(ws)
			for {
				i := int(next.Add(1)) - 1
				if i >= len(chunks) || ctx.Err() != nil {
					return
				}
				c := chunks[i]
				m.forward(ws, clipped[c[0]:c[1]], out[c[0]:c[1]], 1)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// makeChunks cuts the sentences into runs [start, end) of at most
// chunkSentences sentences and chunkTokens tokens.
func makeChunks(ids [][]int32) [][2]int {
	var chunks [][2]int
	start, tokens := 0, 0
	for i, s := range ids {
		if i > start && (tokens+len(s) > chunkTokens || i-start == chunkSentences) {
			chunks = append(chunks, [2]int{start, i})
			start, tokens = i, 0
		}
		tokens += len(s)
	}
	if start < len(ids) {
		chunks = append(chunks, [2]int{start, len(ids)})
	}
	return chunks
}
