// Package contract holds the behaviour every ragd backend must show, as
// test suites to run against any implementation of plugins.Embedder,
// plugins.Extractor or plugins.Reranker: an in-process value, or a plugin
// process reached through plugins/host.
//
//	func TestOllamaContract(t *testing.T) {
//		h := startMyPlugin(t) // a plugins.Embedder
//		contract.TestEmbedder(t, h)
//	}
package contract

import (
	"context"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragd/ragd/plugins"
)

// callTimeout bounds each call the suites make.
const callTimeout = 30 * time.Second

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	t.Cleanup(cancel)
	return c
}

// TestEmbedder checks an embedder: its Info, batch shapes, determinism,
// order, query/document inputs, long and unusual inputs, and concurrent
// calls.
func TestEmbedder(t *testing.T, h plugins.Embedder) {
	t.Helper()
	info, err := h.EmbedderInfo(ctx(t))
	if err != nil {
		t.Fatalf("EmbedderInfo: %v", err)
	}
	t.Run("info", func(t *testing.T) {
		if info.Name == "" {
			t.Error("Info.Name is empty")
		}
		if info.Dimensions <= 0 {
			t.Errorf("Info.Dimensions = %d, want > 0", info.Dimensions)
		}
		if info.MaxBatch < 0 || info.MaxInputTokens < 0 {
			t.Errorf("negative MaxBatch %d or MaxInputTokens %d", info.MaxBatch, info.MaxInputTokens)
		}
		if info.Signature() == "" {
			t.Error("empty Signature")
		}
	})
	embed := func(t *testing.T, in plugins.InputType, texts ...string) [][]float32 {
		t.Helper()
		vecs, err := h.Embed(ctx(t), in, texts)
		if err != nil {
			t.Fatalf("Embed(%d texts): %v", len(texts), err)
		}
		if len(vecs) != len(texts) {
			t.Fatalf("Embed(%d texts) returned %d vectors", len(texts), len(vecs))
		}
		for i, v := range vecs {
			checkVector(t, info, i, v)
		}
		return vecs
	}
	t.Run("empty batch", func(t *testing.T) {
		vecs, err := h.Embed(ctx(t), plugins.InputDocument, nil)
		if err != nil {
			t.Fatalf("Embed(nil): %v", err)
		}
		if len(vecs) != 0 {
			t.Fatalf("Embed(nil) returned %d vectors", len(vecs))
		}
	})
	texts := []string{
		"The quick brown fox jumps over the lazy dog.",
		"Retrieval-augmented generation grounds answers in your own notes.",
		"Photosynthesis converts light into chemical energy.",
	}
	t.Run("batch", func(t *testing.T) { embed(t, plugins.InputDocument, texts...) })
	t.Run("deterministic and order-preserving", func(t *testing.T) {
		a := embed(t, plugins.InputDocument, texts...)
		b := embed(t, plugins.InputDocument, texts[2], texts[1], texts[0])
		for i := range texts {
			if c := cosine(a[i], b[len(texts)-1-i]); c < 0.999 {
				t.Errorf("text %d: cosine %.5f between two embeddings of the same text (batch order or nondeterminism)", i, c)
			}
		}
		one := embed(t, plugins.InputDocument, texts[1])
		if c := cosine(one[0], a[1]); c < 0.999 {
			t.Errorf("cosine %.5f between a text embedded alone and in a batch", c)
		}
	})
	t.Run("query input", func(t *testing.T) {
		q := embed(t, plugins.InputQuery, "what converts light into energy?")
		if len(q) != 1 {
			t.Fatal("no query vector")
		}
	})
	t.Run("unusual input", func(t *testing.T) {
		long := strings.Repeat("lorem ipsum dolor sit amet ", 2000) // past any MaxInputTokens
		embed(t, plugins.InputDocument, "", " ", "日本語のテキスト — ünïcödé ✓", long)
	})
	t.Run("max batch", func(t *testing.T) {
		n := 40
		if info.MaxBatch > 0 && info.MaxBatch < n {
			n = info.MaxBatch
		}
		many := make([]string, n)
		for i := range many {
			many[i] = "passage number " + strings.Repeat("x", i)
		}
		embed(t, plugins.InputDocument, many...)
	})
	t.Run("concurrent", func(t *testing.T) {
		want := embed(t, plugins.InputDocument, texts...)
		var wg sync.WaitGroup
		errs := make(chan string, 8)
		for g := 0; g < 4; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, err := h.Embed(ctx(t), plugins.InputDocument, texts)
				if err != nil {
					errs <- err.Error()
					return
				}
				for i := range texts {
					if len(got) != len(texts) || cosine(got[i], want[i]) < 0.999 {
						errs <- "concurrent calls gave different vectors"
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Error(e)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		// A fast in-process embedder may finish before it looks at the
		// context; it must not fail afterwards.
		c, cancel := context.WithCancel(context.Background())
		cancel()
		if vecs, err := h.Embed(c, plugins.InputDocument, texts); err == nil && len(vecs) != len(texts) {
			t.Errorf("Embed with a cancelled context returned %d vectors for %d texts", len(vecs), len(texts))
		}
		embed(t, plugins.InputDocument, texts[0])
	})
}

func checkVector(t *testing.T, info plugins.EmbedderInfo, i int, v []float32) {
	t.Helper()
	if len(v) != info.Dimensions {
		t.Fatalf("vector %d has %d dimensions, Info says %d", i, len(v), info.Dimensions)
	}
	var norm float64
	for _, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			t.Fatalf("vector %d holds %v", i, x)
		}
		norm += float64(x) * float64(x)
	}
	norm = math.Sqrt(norm)
	if info.Normalized && math.Abs(norm-1) > 1e-3 {
		t.Errorf("vector %d has norm %.5f but Info says normalized", i, norm)
	}
}

func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		if na == nb {
			return 1 // two zero vectors (e.g. for "") are the same
		}
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// Sample is one file for TestExtractor, with what its extraction must
// show.
type Sample struct {
	Path         string   // vault-relative; its extension picks the extractor
	MediaType    string   // optional
	Data         []byte   // the file
	WantTitle    string   // "" to skip the check
	WantContains []string // substrings the extracted text must hold
	// WantLines, when > 0, is the exact line count of the text (for
	// extractors that keep lines 1:1 with the source).
	WantLines int
}

// TestExtractor checks an extractor: its Info, the shape of its
// extractions (valid UTF-8, a known format, pages and entity lines inside
// the text), the given samples, that bad input is an error rather than a
// crash, and concurrent calls.
func TestExtractor(t *testing.T, h plugins.Extractor, samples ...Sample) {
	t.Helper()
	info, err := h.ExtractorInfo(ctx(t))
	if err != nil {
		t.Fatalf("ExtractorInfo: %v", err)
	}
	t.Run("info", func(t *testing.T) {
		if info.Name == "" {
			t.Error("Info.Name is empty")
		}
		if len(info.Extensions) == 0 && len(info.MediaTypes) == 0 {
			t.Error("Info lists no extensions and no media types")
		}
		for _, e := range info.Extensions {
			if !strings.HasPrefix(e, ".") || e != strings.ToLower(e) || len(e) < 2 {
				t.Errorf("extension %q is not lower-case with its dot", e)
			}
		}
		for _, m := range info.MediaTypes {
			if !strings.Contains(m, "/") {
				t.Errorf("media type %q has no slash", m)
			}
		}
	})
	for _, s := range samples {
		t.Run("sample "+s.Path, func(t *testing.T) {
			x, err := h.Extract(ctx(t), plugins.ExtractRequest{Path: s.Path, MediaType: s.MediaType, Data: s.Data})
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			CheckExtraction(t, x)
			if s.WantTitle != "" && x.Title != s.WantTitle {
				t.Errorf("Title = %q, want %q", x.Title, s.WantTitle)
			}
			for _, w := range s.WantContains {
				if !strings.Contains(x.Text, w) {
					t.Errorf("text lacks %q:\n%s", w, x.Text)
				}
			}
			if s.WantLines > 0 {
				if n := lineCount(x.Text); n != s.WantLines {
					t.Errorf("text has %d lines, want %d", n, s.WantLines)
				}
			}
		})
	}
	ext := ".bin"
	if len(info.Extensions) > 0 {
		ext = info.Extensions[0]
	}
	t.Run("bad input", func(t *testing.T) {
		for _, data := range [][]byte{nil, {0xff, 0xfe, 0x00, 0x01, 0x80}, []byte(strings.Repeat("\x00", 1024))} {
			x, err := h.Extract(ctx(t), plugins.ExtractRequest{Path: "junk" + ext, Data: data})
			if err == nil {
				CheckExtraction(t, x)
			}
		}
		if len(samples) > 0 {
			s := samples[0]
			if _, err := h.Extract(ctx(t), plugins.ExtractRequest{Path: s.Path, MediaType: s.MediaType, Data: s.Data}); err != nil {
				t.Errorf("the extractor fails after bad input: %v", err)
			}
		}
	})
	if len(samples) > 0 {
		t.Run("concurrent", func(t *testing.T) {
			s := samples[0]
			var wg sync.WaitGroup
			errs := make(chan error, 4)
			for g := 0; g < 4; g++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if _, err := h.Extract(ctx(t), plugins.ExtractRequest{Path: s.Path, MediaType: s.MediaType, Data: s.Data}); err != nil {
						errs <- err
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
		})
	}
}

// CheckExtraction checks the shape of one extraction.
func CheckExtraction(t *testing.T, x plugins.Extraction) {
	t.Helper()
	if !utf8.ValidString(x.Text) {
		t.Error("text is not valid UTF-8")
	}
	if x.Format != plugins.FormatMarkdown && x.Format != plugins.FormatText {
		t.Errorf("Format = %q, want %q or %q", x.Format, plugins.FormatMarkdown, plugins.FormatText)
	}
	if strings.Contains(x.Title, "\n") {
		t.Errorf("Title %q spans lines", x.Title)
	}
	lines := lineCount(x.Text)
	prev := 0
	for _, p := range x.Pages {
		if p.Number <= prev {
			t.Errorf("page numbers not increasing: %d after %d", p.Number, prev)
		}
		prev = p.Number
		if p.StartLine < 1 || p.StartLine > max(lines, 1) {
			t.Errorf("page %d starts at line %d of %d", p.Number, p.StartLine, lines)
		}
	}
	for k := range x.Metadata {
		if k == "" {
			t.Error("metadata has an empty key")
		}
	}
	for _, e := range x.Entities {
		if e.Name == "" || e.Line < 0 || e.Line > lines || e.Confidence < 0 || e.Confidence > 1 {
			t.Errorf("bad entity %+v (text has %d lines)", e, lines)
		}
	}
	for _, r := range x.Relations {
		if r.Subject == "" || r.Predicate == "" || r.Object == "" || r.Line < 0 || r.Line > lines || r.Confidence < 0 || r.Confidence > 1 {
			t.Errorf("bad relation %+v", r)
		}
	}
}

// lineCount counts lines as citations do: a final newline ends the last
// line rather than starting another.
func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// TestReranker checks a reranker: its Info, one finite score per
// candidate, determinism, and that a candidate's score does not depend on
// its position in the list.
func TestReranker(t *testing.T, h plugins.Reranker) {
	t.Helper()
	info, err := h.RerankerInfo(ctx(t))
	if err != nil {
		t.Fatalf("RerankerInfo: %v", err)
	}
	if info.Name == "" {
		t.Error("Info.Name is empty")
	}
	now := time.Now()
	cands := []plugins.Candidate{
		{ID: "a", Path: "notes/solar.md", Vault: "v", Title: "Solar panels", Heading: "Solar panels > Efficiency", Text: "Solar panel efficiency depends on temperature and angle.", Score: 0.8, Modified: now.Add(-time.Hour)},
		{ID: "b", Path: "notes/bread.md", Vault: "v", Title: "Bread", Heading: "Bread > Sourdough", Text: "A sourdough starter needs flour and water daily.", Score: 0.6, Modified: now.Add(-48 * time.Hour)},
		{ID: "c", Path: "notes/energy.md", Vault: "v", Title: "Energy", Aliases: []string{"Photovoltaics", "PV"}, Text: "Photovoltaic cells convert sunlight to electricity.", Score: 0.5},
		{ID: "d", Path: "notes/empty.md", Vault: "v", Text: "", Score: 0.1},
	}
	query := "how efficient are solar panels"
	rerank := func(t *testing.T, cs []plugins.Candidate) []float64 {
		t.Helper()
		s, err := h.Rerank(ctx(t), query, cs)
		if err != nil {
			t.Fatalf("Rerank: %v", err)
		}
		if len(s) != len(cs) {
			t.Fatalf("Rerank returned %d scores for %d candidates", len(s), len(cs))
		}
		for i, x := range s {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("score %d is %v", i, x)
			}
		}
		return s
	}
	t.Run("empty", func(t *testing.T) {
		s, err := h.Rerank(ctx(t), query, nil)
		if err != nil || len(s) != 0 {
			t.Errorf("Rerank(no candidates) = %v, %v; want no scores", s, err)
		}
	})
	t.Run("scores", func(t *testing.T) {
		a := rerank(t, cands)
		b := rerank(t, cands)
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-6 {
				t.Errorf("candidate %s: score %v then %v", cands[i].ID, a[i], b[i])
			}
		}
	})
	t.Run("position independent", func(t *testing.T) {
		a := rerank(t, cands)
		rev := make([]plugins.Candidate, len(cands))
		for i, c := range cands {
			rev[len(cands)-1-i] = c
		}
		b := rerank(t, rev)
		for i := range cands {
			if math.Abs(a[i]-b[len(cands)-1-i]) > 1e-6 {
				t.Errorf("candidate %s scores %v first and %v when the list is reversed", cands[i].ID, a[i], b[len(cands)-1-i])
			}
		}
	})
	t.Run("single", func(t *testing.T) { rerank(t, cands[:1]) })
	// An in-process reranker is handed ragd's own candidates.
	t.Run("input unchanged", func(t *testing.T) {
		cs := slices.Clone(cands)
		for i := range cs {
			cs[i].Aliases = slices.Clone(cs[i].Aliases)
		}
		rerank(t, cs)
		if !reflect.DeepEqual(cs, cands) {
			t.Errorf("Rerank changed its candidates:\n%+v\nwas\n%+v", cs, cands)
		}
	})
}
