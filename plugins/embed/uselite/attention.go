package uselite

import "sync"

// attentionScratch is one goroutine's room for one head of one sentence.
type attentionScratch struct {
	scores []float32 // L × roundUp(L, 16) attention weights
	keysT  []float32 // packed kᵀ: headD × roundUp(L, 16)
	values []float32 // packed v: L × headD
}

func newAttentionScratch(maxTokens, headD int) attentionScratch {
	lp := roundUp(maxTokens, kernelCols)
	return attentionScratch{
		scores: make([]float32, maxTokens*lp),
		keysT:  make([]float32, headD*lp),
		values: make([]float32, maxTokens*roundUp(headD, kernelCols)),
	}
}

// attention computes the multi-head self-attention of every sentence
// from qkv (rows × 3·in: queries, already scaled, then keys, then values)
// into ctx (rows × in), each head over its own columns. Sentences attend
// to their own tokens only. The heads are split among up to par
// goroutines, each with its own scratch area in ws.attn.
func (m *Model) attention(ws *workspace, l *layer, qkv, ctx []float32, lens []int, par int) {
	clear(ctx)
	par = min(par, l.heads, len(ws.attn))
	if par <= 1 {
		for h := range l.heads {
			attendHead(&ws.attn[0], l, h, qkv, ctx, lens)
		}
		return
	}
	var wg sync.WaitGroup
	for w := range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for h := w; h < l.heads; h += par {
				attendHead(&ws.attn[w], l, h, qkv, ctx, lens)
			}
		}()
	}
	wg.Wait()
}

// attendHead computes head h for every sentence: ctx += softmax(q·kᵀ)·v.
func attendHead(sc *attentionScratch, l *layer, h int, qkv, ctx []float32, lens []int) {
	d := l.headD
	stride := 3 * l.in
	row := 0
	for _, n := range lens {
		if n == 0 {
			continue
		}
		base := row*stride + h*d
		q := qkv[base:]
		k := qkv[base+l.in:]
		v := qkv[base+2*l.in:]
		np := roundUp(n, kernelCols)

		packTransposedInto(sc.keysT[:d*np], k, stride, d, n)
		keysT := packed{k: d, n: np, data: sc.keysT[:d*np]}
		scores := sc.scores[:n*np]
		clear(scores)
		matmulAcc(scores, np, q, stride, n, &keysT, 1)
		for r := range n {
			softmaxRow(scores[r*np : r*np+n])
		}

		packInto(sc.values[:n*d], v, stride, n, d)
		values := packed{k: n, n: d, data: sc.values[:n*d]}
		matmulAcc(ctx[row*l.in+h*d:], l.in, scores, np, n, &values, 1)
		row += n
	}
}

func roundUp(n, m int) int { return (n + m - 1) / m * m }
