package main

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/query"
)

// vocabEmbedder is a test embedder plugin (RAGD_TEST_PLUGIN=vocab-embedder)
// whose space is deterministic: one dimension per word of vocabWords, one
// for any other word in a query, and one that every document has. So a
// query of unknown words is orthogonal to every document (similarity 0)
// and a query sharing words with a note is not. It embeds the similarity
// floor's calibration probes only once a file "open" exists in
// RAGD_TEST_PLUGIN_DIR: until then calibration waits, and the daemon runs
// with vectors but no floor.
const vocabEmbedderName = "vocab-embedder"

var vocabWords = []string{"tomato", "basil", "compost", "seedling", "trellis", "mulch", "aphid", "pruning",
	"espresso", "grinder", "crema", "roast", "kettle", "ferment", "sourdough", "starter"}

type vocabEmbedder struct{ dir string }

func (v *vocabEmbedder) EmbedderInfo(context.Context) (plugins.EmbedderInfo, error) {
	return plugins.EmbedderInfo{Name: "vocab-test", Version: "1", Model: "vocab", Dimensions: len(vocabWords) + 2,
		Normalized: true, MaxBatch: 2}, nil
}

func (v *vocabEmbedder) Embed(ctx context.Context, input plugins.InputType, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if input == plugins.InputQuery && slices.Contains(query.CalibrationProbes(), t) {
			if err := v.waitOpen(ctx); err != nil {
				return nil, err
			}
		}
		out[i] = vocabVector(t, input == plugins.InputQuery)
	}
	return out, nil
}

func (v *vocabEmbedder) waitOpen(ctx context.Context) error {
	if v.dir == "" {
		return errors.New("vocab-embedder needs " + envTestPluginDir)
	}
	for {
		if _, err := os.Stat(filepath.Join(v.dir, "open")); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func vocabVector(text string, query bool) []float32 {
	vec := make([]float32, len(vocabWords)+2)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) }) {
		w = strings.TrimSuffix(w, "s")
		if i := slices.Index(vocabWords, w); i >= 0 {
			vec[i]++
		} else if query {
			vec[len(vocabWords)]++
		}
	}
	if !query {
		vec[len(vocabWords)+1] = 1
	}
	n := 0.0
	for _, x := range vec {
		n += float64(x * x)
	}
	if n == 0 {
		vec[len(vocabWords)] = 1
		n = 1
	}
	for i := range vec {
		vec[i] /= float32(math.Sqrt(n))
	}
	return vec
}
