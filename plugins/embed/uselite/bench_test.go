package uselite

import (
	"context"
	"strings"
	"testing"

	"github.com/ragd/ragd/plugins"
)

var benchWords = strings.Fields(`the daemon watches every vault and re-indexes a note as soon as it is
saved so that search results always cite the current text with its line numbers while the embedder
turns each chunk into a vector and queries go through the same model to land near the passages that
answer them backups with restic borg and snapshots recipes with eggs flour and butter firewall rules
for ssh invoices due at the end of the month weather forecasts with showers in the afternoon`)

// longText returns a passage of n words taken from benchWords, starting
// at word offset so that passages differ.
func longText(n int, offset ...int) string {
	o := 0
	if len(offset) > 0 {
		o = offset[0]
	}
	words := make([]string, n)
	for i := range words {
		words[i] = benchWords[(o+i)%len(benchWords)]
	}
	return strings.Join(words, " ")
}

// BenchmarkEmbed128 embeds batches of 64 passages of at least 128 tokens
// (the model reads 128) through Embedder.Embed, tokenisation included.
func BenchmarkEmbed128(b *testing.B) {
	dir := testModelDir(b)
	e := New()
	ctx := context.Background()
	if err := e.Configure(ctx, plugins.Options{"model_dir": dir}); err != nil {
		b.Fatal(err)
	}
	const batch = 64
	texts := make([]string, batch)
	for i := range texts {
		texts[i] = longText(150, i*7)
		if n := len(e.tok.Encode(texts[i])); n < 128 {
			b.Fatalf("passage %d has %d tokens", i, n)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Embed(ctx, plugins.InputDocument, texts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(batch*b.N)/b.Elapsed().Seconds(), "passages/s")
}

// BenchmarkEmbedQuery is the latency of one short query.
func BenchmarkEmbedQuery(b *testing.B) {
	dir := testModelDir(b)
	e := New()
	ctx := context.Background()
	if err := e.Configure(ctx, plugins.Options{"model_dir": dir}); err != nil {
		b.Fatal(err)
	}
	q := []string{"How do I back up my laptop?"}
	for b.Loop() {
		if _, err := e.Embed(ctx, plugins.InputQuery, q); err != nil {
			b.Fatal(err)
		}
	}
}
