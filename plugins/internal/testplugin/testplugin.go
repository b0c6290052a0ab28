// Package testplugin has small, deterministic backends of every kind for
// tests that run them as real plugin processes: a test binary re-executes
// itself with EnvKind set, and its TestMain calls Run, which serves the
// backend instead of running the tests.
package testplugin

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"
	"unicode"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ragd/ragd/plugins"
)

// Environment of a test plugin process.
const (
	EnvKind      = "RAGD_TEST_PLUGIN"            // kind to serve
	EnvFailStart = "RAGD_TEST_PLUGIN_FAIL_START" // exit with status 3 before serving, after printing this
	EnvPIDFile   = "RAGD_TEST_PLUGIN_PIDFILE"    // append the pid to this file at start
)

// Special texts and queries.
const (
	Hang  = "__hang__"  // the call never returns (ignores cancellation)
	Crash = "__crash__" // the process exits with status 7
	Fail  = "__fail__"  // the call returns an error
	Log   = "__log__"   // the plugin logs a line before answering
	// Unavailable: the call fails with gRPC UNAVAILABLE, as a plugin whose
	// remote service is down would.
	Unavailable = "__unavailable__"
)

// Dims is the fake embedder's dimension count.
const Dims = 8

// Run serves the backend named by EnvKind and exits, or returns false at
// once when EnvKind is not set.
func Run() bool {
	kind := os.Getenv(EnvKind)
	if kind == "" {
		return false
	}
	if msg := os.Getenv(EnvFailStart); msg != "" {
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(3)
	}
	if f := os.Getenv(EnvPIDFile); f != "" {
		if fh, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintln(fh, os.Getpid())
			fh.Close()
		}
	}
	plugins.Serve(kind, New(kind))
	os.Exit(0)
	return true
}

// New returns the fake backend of kind.
func New(kind string) any {
	switch kind {
	case plugins.KindEmbedder:
		return &Embedder{}
	case plugins.KindExtractor:
		return &Extractor{}
	case plugins.KindReranker:
		return &Reranker{}
	}
	panic("testplugin: unknown kind " + kind)
}

// options are the test backends' options.
type options struct {
	DelayMS  int `json:"delay_ms"`  // every call sleeps this long first (honouring cancellation)
	MaxBatch int `json:"max_batch"` // embedder: advertised MaxBatch
}

type base struct {
	opt options
}

func (b *base) Configure(_ context.Context, opts plugins.Options) error {
	if err := plugins.DecodeOptions(opts, &b.opt); err != nil {
		return err
	}
	plugins.Logger().Info("configured", "delay_ms", b.opt.DelayMS)
	return nil
}

// special handles the magic inputs; it returns an error for Fail.
func (b *base) special(_ context.Context, s string) error {
	switch {
	case strings.Contains(s, Hang):
		select {} // a stuck plugin: ignores the cancelled context too
	case strings.Contains(s, Crash):
		os.Exit(7)
	case strings.Contains(s, Fail):
		return errors.New("failing as asked")
	case strings.Contains(s, Unavailable):
		return status.Error(codes.Unavailable, "remote service down")
	case strings.Contains(s, Log):
		plugins.Logger().Warn("asked to log", "input", s)
		fmt.Fprintln(os.Stderr, "plain line on stderr")
	}
	return nil
}

// delay sleeps the configured delay, honouring cancellation. It logs
// "delaying the call" first, so a test knows the call is in the plugin.
func (b *base) delay(ctx context.Context) error {
	if b.opt.DelayMS > 0 {
		plugins.Logger().Info("delaying the call", "ms", b.opt.DelayMS)
		select {
		case <-time.After(time.Duration(b.opt.DelayMS) * time.Millisecond):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Embedder hashes texts to unit vectors of Dims dimensions.
type Embedder struct{ base }

func (e *Embedder) EmbedderInfo(context.Context) (plugins.EmbedderInfo, error) {
	return plugins.EmbedderInfo{
		Name: "fake", Version: "1", Model: "sha256-8", Dimensions: Dims,
		MaxInputTokens: 512, QueryPrefix: "q: ", Normalized: true, MaxBatch: e.opt.MaxBatch,
	}, nil
}

func (e *Embedder) Embed(ctx context.Context, input plugins.InputType, texts []string) ([][]float32, error) {
	for _, t := range texts {
		if err := e.special(ctx, t); err != nil {
			return nil, err
		}
	}
	if err := e.delay(ctx); err != nil {
		return nil, err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if input == plugins.InputQuery {
			t = "q: " + t
		}
		out[i] = Vector(t)
	}
	return out, nil
}

// Vector is the fake embedder's vector for an (already prefixed) text.
func Vector(text string) []float32 {
	sum := sha256.Sum256([]byte(text))
	v := make([]float32, Dims)
	var norm float64
	for i := range v {
		x := float64(int32(binary.LittleEndian.Uint32(sum[i*4:]))) / math.MaxInt32
		v[i] = float32(x)
		norm += x * x
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] = float32(float64(v[i]) / norm)
	}
	return v
}

// Extractor returns a text file's text; its title is the first line.
type Extractor struct{ base }

func (x *Extractor) ExtractorInfo(context.Context) (plugins.ExtractorInfo, error) {
	return plugins.ExtractorInfo{Name: "fake", Version: "1", Extensions: []string{".fake", ".txt"}, MediaTypes: []string{"text/x-fake"}}, nil
}

func (x *Extractor) Extract(ctx context.Context, req plugins.ExtractRequest) (plugins.Extraction, error) {
	text := strings.ToValidUTF8(string(req.Data), "\uFFFD")
	if err := x.special(ctx, text); err != nil {
		return plugins.Extraction{}, err
	}
	if err := x.delay(ctx); err != nil {
		return plugins.Extraction{}, err
	}
	title, _, _ := strings.Cut(text, "\n")
	out := plugins.Extraction{
		Text:     text,
		Format:   plugins.FormatText,
		Title:    strings.TrimSpace(title),
		Metadata: map[string]string{"bytes": fmt.Sprint(len(req.Data)), "path": req.Path},
		Pages:    []plugins.Page{{Number: 1, StartLine: 1}},
	}
	for i, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "Alice") {
			out.Entities = append(out.Entities, plugins.Entity{Name: "Alice", Type: "PERSON", Line: i + 1, Confidence: 0.9})
		}
	}
	return out, nil
}

// Reranker scores a candidate by the share of query words in its text.
type Reranker struct{ base }

func (r *Reranker) RerankerInfo(context.Context) (plugins.RerankerInfo, error) {
	return plugins.RerankerInfo{Name: "fake", Version: "1"}, nil
}

func (r *Reranker) Rerank(ctx context.Context, query string, cands []plugins.Candidate) ([]float64, error) {
	if err := r.special(ctx, query); err != nil {
		return nil, err
	}
	if err := r.delay(ctx); err != nil {
		return nil, err
	}
	q := words(query)
	scores := make([]float64, len(cands))
	for i, c := range cands {
		have := map[string]bool{}
		for _, w := range words(c.Title + " " + c.Heading + " " + c.Text) {
			have[w] = true
		}
		n := 0
		for _, w := range q {
			if have[w] {
				n++
			}
		}
		if len(q) > 0 {
			scores[i] = float64(n) / float64(len(q))
		}
	}
	return scores, nil
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
