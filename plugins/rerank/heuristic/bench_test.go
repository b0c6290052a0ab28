package heuristic

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ragd/ragd/plugins"
)

// BenchmarkRerank is the default search's call: 30 candidates, metadata
// only, in process.
func BenchmarkRerank(b *testing.B) {
	cands := make([]plugins.Candidate, 30)
	for i := range cands {
		cands[i] = plugins.Candidate{ID: fmt.Sprint(i), Vault: "notes", Path: fmt.Sprintf("folder %d/note %d.md", i%7, i/2),
			Title: fmt.Sprintf("Note %d on compost", i), Heading: "Garden > Compost heaps > Turning", Score: float64(30 - i),
			Modified: time.Unix(1.7e9+int64(i)*3600, 0)}
	}
	r := New()
	ctx := context.Background()
	for b.Loop() {
		if _, err := r.Rerank(ctx, "turning a compost heap", cands); err != nil {
			b.Fatal(err)
		}
	}
}
