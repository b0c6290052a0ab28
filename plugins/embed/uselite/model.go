package uselite

import (
	"fmt"
	"math"
	"path/filepath"
	"sync"
)

// Weight names in model.json.
const (
	prefixApply     = "module_apply_default/Encoder_en/KonaTransformer/"
	prefixStack     = prefixApply + "Encode/TransformerStack/"
	prefixVariables = "module/Encoder_en/KonaTransformer/Encode/"

	nameEmbeddings = "module/Embeddings_en"
	nameTiming     = prefixStack + "Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1"
	nameMaxTokens  = prefixApply + "ClipToMaxLength/Less/y"
	nameEpsilon    = prefixStack + "Layer_1/TransformerLayer/FFN/layer_prepostprocess/layer_norm/Cast/x"
	nameHidden     = "module/Encoder_en/hidden_layers/tanh_layer_0/"
	nameL2Epsilon  = "module_apply_default/Encoder_en/hidden_layers/l2_normalize/Maximum/y"
)

// Model is the Universal Sentence Encoder Lite network with its weights,
// ready to run: matrices are packed for the matmul kernel once, at load.
//
// The forward pass is hand-written after the TF.js graph in model.json
// (317 nodes, 42 op types); see forward.go for the correspondence. It
// runs each sentence on its own tokens only, without the padding the
// graph adds to make a dense batch: padded positions never reach a valid
// one there (attention gives them a bias of -1e9, the mean pooling a
// weight of 0), so the results are the same.
//
// A Model is immutable and safe for concurrent use.
type Model struct {
	embDim    int       // 256: width of the token embeddings
	dim       int       // 512: width of the transformer and of the output
	maxTokens int       // 128: the graph keeps the first maxTokens ids
	embedding []float32 // vocabulary × embDim
	vocab     int
	timing    []float32 // maxTokens × embDim: the timing signal of each position
	epsilon   float32   // layer norm
	l2Epsilon float32
	layers    [2]layer
	hidden    packed // dim × dim, then tanh
	hiddenB   []float32
	maxHeadD  int

	workspaces sync.Pool // of *workspace, ~5 MB each, reused between calls
}

// layer is one TransformerLayer: pre-norm self-attention and a pre-norm
// ReLU feed-forward block, each with a residual connection.
type layer struct {
	in, dim       int // input and output widths
	heads, headD  int
	attnNormScale []float32
	attnNormBias  []float32
	qkv           packed // in × 3·in, the query columns pre-scaled by 1/√headD
	qkvB          []float32
	out           packed // in × dim
	outB          []float32
	residual      *packed // in × dim when in ≠ dim (AdjustResidualInput), else nil
	residualB     []float32
	ffnNormScale  []float32
	ffnNormBias   []float32
	ffn1          packed // dim × 3·dim, then ReLU
	ffn1B         []float32
	ffn2          packed // 3·dim × dim
	ffn2B         []float32
}

// LoadModel reads model.json and its weight shards from dir.
func LoadModel(dir string) (*Model, error) {
	w, err := readWeights(dir)
	if err != nil {
		return nil, err
	}
	s := &weightSet{w: w}
	m := &Model{maxTokens: s.int(nameMaxTokens)}
	emb := s.w[nameEmbeddings]
	if len(emb.shape) != 2 {
		return nil, fmt.Errorf("uselite: weight %s not found or not a matrix", nameEmbeddings)
	}
	m.vocab, m.embDim = emb.shape[0], emb.shape[1]
	m.embedding = s.floats(nameEmbeddings, m.vocab, m.embDim)
	invTime := s.floats(nameTiming, 1, m.embDim/2)
	m.epsilon = s.scalar(nameEpsilon)
	m.l2Epsilon = s.scalar(nameL2Epsilon)
	in := m.embDim
	for i := range m.layers {
		m.layers[i] = loadLayer(s, i, in)
		in = m.layers[i].dim
		m.maxHeadD = max(m.maxHeadD, m.layers[i].headD)
	}
	m.dim = in
	hidden := s.floats(nameHidden+"weights", m.dim, m.dim)
	m.hiddenB = s.floats(nameHidden+"bias", m.dim)
	if s.err != nil {
		return nil, fmt.Errorf("%w (in %s)", s.err, filepath.Join(dir, "model.json"))
	}
	if m.maxTokens <= 0 || m.maxTokens > chunkTokens || m.embDim%2 != 0 || m.embDim > m.dim {
		return nil, fmt.Errorf("uselite: unexpected model constants")
	}
	m.hidden = packMatrix(hidden, m.dim, m.dim)
	m.timing = timingSignal(invTime, m.maxTokens)
	return m, nil
}

// loadLayer reads TransformerLayer i, whose input is in wide.
func loadLayer(s *weightSet, i, in int) layer {
	apply := fmt.Sprintf("%sEncode/Layer_%d/TransformerLayer/", prefixApply, i)
	stack := fmt.Sprintf("%sLayer_%d/TransformerLayer/", prefixStack, i)
	vars := fmt.Sprintf("%sLayer_%d/TransformerLayer/", prefixVariables, i)
	part := "/ConcatPartitions/concat"

	l := layer{in: in}
	l.headD = s.int(stack + "MultiheadAttention/split_heads/split_last_dimension/Reshape/shape/3")
	if l.headD <= 0 || in%l.headD != 0 {
		s.fail(fmt.Errorf("uselite: layer %d: head width %d does not divide %d", i, l.headD, in))
		return l
	}
	l.heads = in / l.headD
	scale := s.scalar(stack + "MultiheadAttention/mul/y")
	out := s.w[vars+"MultiheadAttention/output_transform_single/kernel/part_0"]
	if len(out.shape) != 4 {
		s.fail(fmt.Errorf("uselite: layer %d: output transform not found", i))
		return l
	}
	l.dim = out.shape[3]

	l.attnNormScale = s.floats(apply+"layer_prepostprocess/layer_norm/layer_norm_scale"+part, in)
	l.attnNormBias = s.floats(apply+"layer_prepostprocess/layer_norm/layer_norm_bias"+part, in)
	qkv := s.floats(vars+"MultiheadAttention/qkv_transform_single/kernel/part_0", 1, 1, in, 3*in)
	qkvB := s.floats(apply+"MultiheadAttention/qkv_transform_single/bias"+part, 3*in)
	outW := s.floats(vars+"MultiheadAttention/output_transform_single/kernel/part_0", 1, 1, in, l.dim)
	l.outB = s.floats(apply+"MultiheadAttention/output_transform_single/bias"+part, l.dim)
	var res []float32
	if in != l.dim {
		res = s.floats(apply+"dense/kernel"+part, in, l.dim)
		l.residualB = s.floats(apply+"dense/bias"+part, l.dim)
	}
	l.ffnNormScale = s.floats(apply+"FFN/layer_prepostprocess/layer_norm/layer_norm_scale"+part, l.dim)
	l.ffnNormBias = s.floats(apply+"FFN/layer_prepostprocess/layer_norm/layer_norm_bias"+part, l.dim)
	ffn1 := s.floats(stack+"FFN/conv1/Tensordot/Reshape_1", l.dim, 3*l.dim)
	l.ffn1B = s.floats(apply+"FFN/conv1/bias"+part, 3*l.dim)
	ffn2 := s.floats(stack+"FFN/conv2/Tensordot/Reshape_1", 3*l.dim, l.dim)
	l.ffn2B = s.floats(apply+"FFN/conv2/bias"+part, l.dim)
	if s.err != nil {
		return l
	}

	// The graph multiplies the queries by scale after the projection;
	// folding it into the projection saves a pass over them.
	qkv = append([]float32(nil), qkv...)
	l.qkvB = append([]float32(nil), qkvB...)
	for r := range in {
		for c := range in {
			qkv[r*3*in+c] *= scale
		}
	}
	for c := range in {
		l.qkvB[c] *= scale
	}
	l.qkv = packMatrix(qkv, in, 3*in)
	l.out = packMatrix(outW, in, l.dim)
	if res != nil {
		p := packMatrix(res, in, l.dim)
		l.residual = &p
	}
	l.ffn1 = packMatrix(ffn1, l.dim, 3*l.dim)
	l.ffn2 = packMatrix(ffn2, 3*l.dim, l.dim)
	return l
}

// timingSignal tabulates AddTimingSignal: for position p, sin(p·invᵢ)
// then cos(p·invᵢ), the product rounded to float32 as in the graph.
func timingSignal(inv []float32, positions int) []float32 {
	d := 2 * len(inv)
	t := make([]float32, positions*d)
	for p := range positions {
		row := t[p*d : (p+1)*d]
		for i, v := range inv {
			arg := float64(float32(p) * v)
			row[i] = float32(math.Sin(arg))
			row[len(inv)+i] = float32(math.Cos(arg))
		}
	}
	return t
}

// Dimensions is the length of the output vectors (512).
func (m *Model) Dimensions() int { return m.dim }

// MaxTokens is how many leading token ids of a sentence the model reads
// (128); the rest are ignored, as the graph's ClipToMaxLength does.
func (m *Model) MaxTokens() int { return m.maxTokens }
