package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/ragd/ragd/query/metrics"
)

// vaultReport is what `ragctl eval -vault` prints; the JSON keys are stable.
type vaultReport struct {
	Config       string   `json:"config,omitempty"` // the retrieval setting, in a sweep
	Recall5      float64  `json:"recall_at_5"`
	Recall10     float64  `json:"recall_at_10"`
	MRR10        float64  `json:"mrr_at_10"`
	Queries      int      `json:"queries"`
	IndexSeconds float64  `json:"index_seconds"`
	Misses       []string `json:"misses,omitempty"` // questions with no listed file in the top 10
}

func (r *vaultReport) print(w io.Writer, dir string) {
	fmt.Fprintf(w, "vault          %s\nqueries        %d\n", dir, r.Queries)
	fmt.Fprintf(w, "recall@5       %.4f\nrecall@10      %.4f\nMRR@10         %.4f\nindex seconds  %.2f\n",
		r.Recall5, r.Recall10, r.MRR10, r.IndexSeconds)
	for _, m := range r.Misses {
		fmt.Fprintf(w, "miss: %s\n", m)
	}
}

type vaultQuestion struct {
	text  string
	files metrics.Judgments
}

// evalVault indexes dir with a throwaway ragd (read-only: nothing is
// written into it) and asks every question of the qrels file.
func evalVault(ctx context.Context, bin, tmp, dir string, qs []vaultQuestion, extra string, rets []retrieval) ([]*vaultReport, error) {
	start := time.Now()
	t, err := startThrowaway(bin, tmp, dir, extra)
	if err != nil {
		return nil, err
	}
	defer t.stop()
	if err := t.waitIdle(ctx); err != nil {
		return nil, err
	}
	indexed := time.Since(start).Seconds()
	var reps []*vaultReport
	for _, ret := range rets {
		t.ret = ret
		rep, err := t.askVault(ctx, qs)
		if err != nil {
			return nil, err
		}
		rep.Config, rep.IndexSeconds = ret.name, indexed
		reps = append(reps, rep)
	}
	return reps, nil
}

// askVault asks every question with t.ret and scores the rankings.
func (t *throwaway) askVault(ctx context.Context, qs []vaultQuestion) (*vaultReport, error) {
	rep := &vaultReport{}
	for _, q := range qs {
		paths, err := t.rank(ctx, q.text)
		if err != nil {
			return nil, fmt.Errorf("question %q: %w", q.text, err)
		}
		rep.Recall5 += metrics.Recall(paths, q.files, 5)
		rep.Recall10 += metrics.Recall(paths, q.files, 10)
		mrr := metrics.MRR(paths, q.files, 10)
		rep.MRR10 += mrr
		if mrr == 0 {
			rep.Misses = append(rep.Misses, q.text)
		}
		rep.Queries++
	}
	if rep.Queries > 0 {
		n := float64(rep.Queries)
		rep.Recall5, rep.Recall10, rep.MRR10 = rep.Recall5/n, rep.Recall10/n, rep.MRR10/n
	}
	return rep, nil
}

func readVaultQuestions(path string) ([]vaultQuestion, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []vaultQuestion
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, files, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(q) == "" || strings.TrimSpace(files) == "" {
			return nil, fmt.Errorf("%s:%d: want question<TAB>path[;path…]", path, n)
		}
		j := metrics.Judgments{}
		for _, p := range strings.Split(files, ";") {
			if p = strings.Trim(strings.TrimSpace(p), "/"); p != "" {
				j[p] = 1
			}
		}
		if len(j) == 0 {
			return nil, fmt.Errorf("%s:%d: no path after the tab: want question<TAB>path[;path…]", path, n)
		}
		out = append(out, vaultQuestion{text: strings.TrimSpace(q), files: j})
	}
	return out, sc.Err()
}
