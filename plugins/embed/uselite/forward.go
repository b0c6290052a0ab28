package uselite

// The forward pass, after the TF.js graph (node names shortened):
//
//	ClipToMaxLength        keep the ids at positions < 128
//	Encode/embedding_lookup, Scatter, AddTimingSignal
//	                       x = e + (e + timing(pos)), e the id's embedding
//	Layer_0 (256 → 512 wide, 4 heads of 64), Layer_1 (512, 4 heads of 128):
//	  AdjustResidualInput  r = x·Wd + bd      (Layer_0 only; else r = x)
//	  layer_norm           h = LN(x)
//	  qkv_transform        q, k, v = split(h·Wqkv + b), q scaled by 1/√d
//	  DotProductAttention  per head softmax(q·kᵀ)·v over the sentence
//	  output_transform     x = r + (attn·Wo + bo)
//	  FFN                  x = x + (relu(LN(x)·W1 + b1)·W2 + b2)
//	mean over the sentence's tokens, tanh(·W + b), l2_normalize
//
// Layer norms are LN(x) = scale·(x − mean)/√(var + 1e-6) + bias.

import "math"

// workspace holds the activations of one chunk of sentences; a worker
// reuses it from chunk to chunk.
type workspace struct {
	x0, x, h, qkv, ctx, ffn []float32
	pooled, hidden          []float32
	attn                    []attentionScratch
}

// newWorkspace makes room for chunks of up to rows tokens and sentences
// sentences, with par attention scratch areas.
func (m *Model) newWorkspace(rows, sentences, par int) *workspace {
	ws := &workspace{
		x0:     make([]float32, rows*m.embDim),
		x:      make([]float32, rows*m.dim),
		h:      make([]float32, rows*m.dim),
		qkv:    make([]float32, rows*3*m.dim),
		ctx:    make([]float32, rows*m.dim),
		ffn:    make([]float32, rows*3*m.dim),
		pooled: make([]float32, sentences*m.dim),
		hidden: make([]float32, sentences*m.dim),
	}
	for range par {
		ws.attn = append(ws.attn, newAttentionScratch(m.maxTokens, m.maxHeadD))
	}
	return ws
}

// forward embeds the sentences of one chunk (token ids, each at most
// maxTokens long) into out, one dim-long row each. par is how many
// goroutines the matmuls and the attention may use.
func (m *Model) forward(ws *workspace, ids [][]int32, out [][]float32, par int) {
	rows := 0
	lens := make([]int, len(ids))
	for i, s := range ids {
		lens[i] = len(s)
		rows += len(s)
	}
	m.embedTokens(ws.x0, ids)

	x := ws.x[:rows*m.dim]
	for i := range m.layers {
		l := &m.layers[i]
		in := x
		if i == 0 {
			in = ws.x0[:rows*l.in]
		}
		m.runLayer(ws, l, in, x, rows, lens, par)
	}
	m.poolAndProject(ws, x, lens, out, par)
}

// embedTokens writes e + (e + timing) for every token, as the graph does
// (it adds the timing signal to the scattered embeddings, then adds the
// embeddings once more).
func (m *Model) embedTokens(dst []float32, ids [][]int32) {
	d := m.embDim
	row := 0
	for _, s := range ids {
		for pos, id := range s {
			e := m.embedding[int(id)*d : int(id)*d+d]
			t := m.timing[pos*d : pos*d+d]
			out := dst[row*d : row*d+d]
			for i, v := range e {
				out[i] = v + (v + t[i])
			}
			row++
		}
	}
}

// runLayer applies transformer layer l to in (rows × l.in), writing
// x (rows × l.dim); x may be in itself when the widths are equal.
func (m *Model) runLayer(ws *workspace, l *layer, in, x []float32, rows int, lens []int, par int) {
	// Residual branch first: x = in·Wd + bd, or x = in.
	if l.residual != nil {
		fillRows(x, l.residualB, rows)
		matmulAcc(x, l.dim, in, l.in, rows, l.residual, par)
	} else if len(in) > 0 && &in[0] != &x[0] {
		copy(x, in)
	}
	h := ws.h[:rows*l.in]
	layerNorm(h, in, l.in, l.attnNormScale, l.attnNormBias, m.epsilon)
	qkv := ws.qkv[:rows*3*l.in]
	fillRows(qkv, l.qkvB, rows)
	matmulAcc(qkv, 3*l.in, h, l.in, rows, &l.qkv, par)
	ctx := ws.ctx[:rows*l.in]
	m.attention(ws, l, qkv, ctx, lens, par)
	addRows(x, l.outB, rows)
	matmulAcc(x, l.dim, ctx, l.in, rows, &l.out, par)

	h = ws.h[:rows*l.dim]
	layerNorm(h, x, l.dim, l.ffnNormScale, l.ffnNormBias, m.epsilon)
	ffn := ws.ffn[:rows*3*l.dim]
	fillRows(ffn, l.ffn1B, rows)
	matmulAcc(ffn, 3*l.dim, h, l.dim, rows, &l.ffn1, par)
	relu(ffn)
	addRows(x, l.ffn2B, rows)
	matmulAcc(x, l.dim, ffn, 3*l.dim, rows, &l.ffn2, par)
}

// poolAndProject averages each sentence's rows of x, then applies the
// tanh layer and the L2 normalisation into out.
func (m *Model) poolAndProject(ws *workspace, x []float32, lens []int, out [][]float32, par int) {
	d := m.dim
	n := len(lens)
	pooled := ws.pooled[:n*d]
	clear(pooled)
	row := 0
	for s, l := range lens {
		p := pooled[s*d : s*d+d]
		for range l {
			for j, v := range x[row*d : row*d+d] {
				p[j] += v
			}
			row++
		}
		div := float32(max(l, 1))
		for j := range p {
			p[j] /= div
		}
	}
	hidden := ws.hidden[:n*d]
	fillRows(hidden, m.hiddenB, n)
	matmulAcc(hidden, d, pooled, d, n, &m.hidden, par)
	for s := range n {
		h := hidden[s*d : s*d+d]
		var sum float32
		for j, v := range h {
			t := float32(math.Tanh(float64(v)))
			h[j] = t
			sum += t * t
		}
		scale := float32(1 / math.Sqrt(float64(max(sum, m.l2Epsilon))))
		for j, v := range h {
			out[s][j] = v * scale
		}
	}
}
