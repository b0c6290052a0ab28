package main

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/host"
)

// BenchmarkHeuristicRerank is the default search's rerank call, 30
// candidates with metadata only, through the host: to the reranker in a
// process of its own and in ragd's process, in the same run.
func BenchmarkHeuristicRerank(b *testing.B) {
	cands := make([]plugins.Candidate, 30)
	for i := range cands {
		cands[i] = plugins.Candidate{ID: fmt.Sprint(i), Vault: "notes", Path: fmt.Sprintf("folder %d/note %d.md", i%7, i/2),
			Title: fmt.Sprintf("Note %d on compost", i), Heading: "Garden > Compost heaps > Turning", Score: float64(30 - i),
			Modified: time.Unix(1.7e9+int64(i)*3600, 0)}
	}
	sub := startBuiltins(b, host.Spec{Name: "heuristic", Kind: plugins.KindReranker})
	in := startInProcessHeuristic(b)
	for _, m := range []struct {
		name string
		mgr  *host.Manager
	}{{"subprocess", sub}, {"in-process", in}} {
		r, _ := m.mgr.Reranker("heuristic")
		b.Run(m.name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				if _, err := r.Rerank(ctx, "turning a compost heap", cands); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
