package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode"

	"github.com/ragd/ragd/bench/peer"
	"github.com/ragd/ragd/query/metrics"
)

// vaultReport is what `ragctl eval -vault` prints; the JSON keys are
// stable: the overall scores at the top level, per kind under "kinds",
// and the peers' reports, alike, under "peers".
type vaultReport struct {
	Config string `json:"config,omitempty"` // the retrieval setting, in a sweep
	Engine string `json:"engine"`           // "ragd", or the peer's engine
	scores
	IndexSeconds float64        `json:"index_seconds"`
	Kinds        []kindScores   `json:"kinds,omitempty"`
	Misses       []string       `json:"misses,omitempty"` // questions with no listed file in the top 10
	Peers        []*vaultReport `json:"peers,omitempty"`
}

func (r *vaultReport) print(w io.Writer, dir string) {
	reps := append([]*vaultReport{r}, r.Peers...)
	fmt.Fprintf(w, "vault          %s\nquestions      %d", dir, r.Queries)
	if len(r.Kinds) > 0 {
		fmt.Fprintf(w, " (%s)", kindCounts(r.Kinds))
	}
	fmt.Fprintf(w, "\nindex seconds ")
	for i, p := range reps {
		if i > 0 {
			fmt.Fprint(w, ",")
		}
		fmt.Fprintf(w, " %s %.2f", p.Engine, p.IndexSeconds)
	}
	fmt.Fprintf(w, "\n\n%s\n\n", metricsLegend)
	printScoreTable(w, reps)
	if len(r.Misses) > 0 {
		fmt.Fprintf(w, "\n%s misses (no relevant note in the top 10):\n", r.Engine)
		for _, m := range r.Misses {
			fmt.Fprintf(w, "  %s\n", m)
		}
	}
}

type vaultQuestion struct {
	text  string
	kind  string
	files metrics.Judgments
}

// evalVault indexes dir with a throwaway ragd (read-only: nothing is
// written into it) and asks every question of the qrels file; then each
// peer engine does the same.
func evalVault(ctx context.Context, bin, tmp, dir string, qs []vaultQuestion, extra string, rets []retrieval, peers peerSet) ([]*vaultReport, error) {
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
		rankings := make([][]string, len(qs))
		for i, q := range qs {
			if rankings[i], err = t.rank(ctx, q.text); err != nil {
				return nil, fmt.Errorf("question %q: %w", q.text, err)
			}
		}
		rep := scoreVault(qs, rankings)
		rep.Config, rep.Engine, rep.IndexSeconds = ret.name, "ragd", indexed
		reps = append(reps, rep)
	}
	t.stop()
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.text
	}
	for _, engine := range peers.engines {
		run, err := peers.ask(tmp, engine, peer.Source{Vault: dir}, texts)
		if err != nil {
			return nil, err
		}
		rep := scoreVault(qs, run.rankings)
		rep.Engine, rep.IndexSeconds = engine, run.indexSeconds
		reps[0].Peers = append(reps[0].Peers, rep)
	}
	return reps, nil
}

// scoreVault scores the questions' rankings (index-aligned with qs), per
// kind and overall.
func scoreVault(qs []vaultQuestion, rankings [][]string) *vaultReport {
	rep := &vaultReport{}
	var sheet scoreSheet
	for i, q := range qs {
		paths := rankings[i]
		sheet.add(q.kind, paths, q.files)
		if metrics.MRR(paths, q.files, 10) == 0 {
			rep.Misses = append(rep.Misses, q.text)
		}
	}
	rep.scores, rep.Kinds = sheet.finish()
	return rep
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
		line := strings.TrimRight(sc.Text(), " \t\r") // trailing empty columns are no columns
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Split(line, "\t")
		if len(fields) < 2 || len(fields) > 3 || strings.TrimSpace(fields[0]) == "" || strings.TrimSpace(fields[1]) == "" {
			return nil, fmt.Errorf("%s:%d: want question<TAB>path[;path…][<TAB>kind]", path, n)
		}
		j := metrics.Judgments{}
		for _, p := range strings.Split(fields[1], ";") {
			if p = strings.Trim(strings.TrimSpace(p), "/"); p != "" {
				j[p] = 1
			}
		}
		if len(j) == 0 {
			return nil, fmt.Errorf("%s:%d: no path after the tab: want question<TAB>path[;path…][<TAB>kind]", path, n)
		}
		kind := unlabelled
		if len(fields) == 3 && strings.TrimSpace(fields[2]) != "" {
			if kind = strings.TrimSpace(fields[2]); strings.ContainsFunc(kind, unicode.IsSpace) {
				return nil, fmt.Errorf("%s:%d: the kind after the second tab must be one word, got %q", path, n, kind)
			}
		}
		out = append(out, vaultQuestion{text: strings.TrimSpace(fields[0]), kind: kind, files: j})
	}
	return out, sc.Err()
}
