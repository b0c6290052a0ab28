package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/ragd/ragd/query/metrics"
)

// unlabelled is the kind of a question whose line has no third column.
const unlabelled = "unlabelled"

// metricsLegend names what each vault metric measures.
const metricsLegend = `success@5 = share of questions with at least one relevant note in the top 5
recall@k  = share of a question's relevant notes found in the top k, averaged
MRR@10    = mean of 1/rank of the first relevant note in the top 10 (0 when none)
rankings are of distinct notes; recall@100 fills 100 of them`

// scores are the vault metrics of a set of questions; the JSON keys are
// stable.
type scores struct {
	Queries   int     `json:"queries"`
	Success5  float64 `json:"success_at_5"`
	Recall5   float64 `json:"recall_at_5"`
	Recall10  float64 `json:"recall_at_10"`
	MRR10     float64 `json:"mrr_at_10"`
	Recall100 float64 `json:"recall_at_100"`
}

// add sums one question's metrics; mean divides at the end.
func (s *scores) add(ranked []string, rel metrics.Judgments) {
	s.Queries++
	if metrics.Recall(ranked, rel, 5) > 0 {
		s.Success5++
	}
	s.Recall5 += metrics.Recall(ranked, rel, 5)
	s.Recall10 += metrics.Recall(ranked, rel, 10)
	s.MRR10 += metrics.MRR(ranked, rel, 10)
	s.Recall100 += metrics.Recall(ranked, rel, 100)
}

func (s *scores) mean() {
	if s.Queries == 0 {
		return
	}
	n := float64(s.Queries)
	s.Success5, s.Recall5, s.Recall10, s.MRR10, s.Recall100 = s.Success5/n, s.Recall5/n, s.Recall10/n, s.MRR10/n, s.Recall100/n
}

// kindScores are the scores of the questions of one kind.
type kindScores struct {
	Kind string `json:"kind"`
	scores
}

// scoreSheet accumulates overall and per-kind scores, kinds in the order
// they first appear.
type scoreSheet struct {
	all   scores
	kinds []kindScores
}

func (s *scoreSheet) add(kind string, ranked []string, rel metrics.Judgments) {
	if kind == "" {
		kind = unlabelled
	}
	s.all.add(ranked, rel)
	for i := range s.kinds {
		if s.kinds[i].Kind == kind {
			s.kinds[i].add(ranked, rel)
			return
		}
	}
	s.kinds = append(s.kinds, kindScores{Kind: kind})
	s.kinds[len(s.kinds)-1].add(ranked, rel)
}

// finish returns the mean scores, and the per-kind ones unless every
// question is unlabelled.
func (s *scoreSheet) finish() (scores, []kindScores) {
	s.all.mean()
	for i := range s.kinds {
		s.kinds[i].mean()
	}
	if len(s.kinds) == 1 && s.kinds[0].Kind == unlabelled {
		return s.all, nil
	}
	return s.all, s.kinds
}

// printScoreTable prints one row per kind and engine, then the overall
// rows: ragd's report and its peers' side by side.
func printScoreTable(w io.Writer, reps []*vaultReport) {
	fmt.Fprintf(w, "%-12s %-13s %9s %9s %8s %9s %8s %10s\n", "kind", "engine", "questions", "success@5", "recall@5", "recall@10", "MRR@10", "recall@100")
	row := func(kind, engine string, s scores) {
		fmt.Fprintf(w, "%-12s %-13s %9d %9.4f %8.4f %9.4f %8.4f %10.4f\n", kind, engine, s.Queries, s.Success5, s.Recall5, s.Recall10, s.MRR10, s.Recall100)
	}
	for i := range reps[0].Kinds {
		for _, r := range reps {
			if i < len(r.Kinds) {
				row(r.Kinds[i].Kind, r.Engine, r.Kinds[i].scores)
			}
		}
	}
	for _, r := range reps {
		row("all", r.Engine, r.scores)
	}
}

// kindCounts says how many questions each kind has: "keyword 10, link 5".
func kindCounts(ks []kindScores) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%s %d", k.Kind, k.Queries)
	}
	return strings.Join(parts, ", ")
}
