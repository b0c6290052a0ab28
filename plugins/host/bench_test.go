//go:build unix

package host

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/plugins"
)

// BenchmarkEmbedRoundTrip measures one Embed through the host to a plugin
// process and back: an empty batch (the bare round trip) and 64 texts of
// 1 KB. It reports the median as p50-ns/op next to the mean.
func BenchmarkEmbedRoundTrip(b *testing.B) {
	m, _ := startManager(b, testSpec("emb", plugins.KindEmbedder, nil))
	h, err := m.Embedder("emb")
	if err != nil {
		b.Fatal(err)
	}
	kb := strings.Repeat("abcdefghij klmnopqrst uvwxyz ", 36)[:1024]
	batch := make([]string, 64)
	for i := range batch {
		batch[i] = kb[:1020] + string(rune('A'+i%26)) + "..."
	}
	for _, bc := range []struct {
		name  string
		texts []string
	}{{"empty", nil}, {"64x1KB", batch}} {
		b.Run(bc.name, func(b *testing.B) {
			ctx := context.Background()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := h.Embed(ctx, plugins.InputDocument, bc.texts); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns/op")
		})
	}
}
