package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ragd/ragd/bench/peer"
	"github.com/ragd/ragd/query/metrics"
)

// beirReport is what `ragctl eval -beir` prints; the JSON keys are stable.
type beirReport struct {
	Config       string  `json:"config,omitempty"` // the retrieval setting, in a sweep
	Engine       string  `json:"engine"`           // "ragd", or the peer's engine
	NDCG10       float64 `json:"ndcg_at_10"`
	Recall100    float64 `json:"recall_at_100"`
	MRR10        float64 `json:"mrr_at_10"`
	Docs         int     `json:"docs"`
	Queries      int     `json:"queries"`
	IndexSeconds float64 `json:"index_seconds"`
	QueryP50MS   float64 `json:"query_p50_ms"`
	QueryP95MS   float64 `json:"query_p95_ms"`
	// Without the query's embedding, inside the daemon (hybrid and vector
	// modes only).
	NoEmbedP50MS float64 `json:"query_p50_ms_without_embedding,omitempty"`
	NoEmbedP95MS float64 `json:"query_p95_ms_without_embedding,omitempty"`
	// Peers are the peer engines' reports on the same queries.
	Peers []*beirReport `json:"peers,omitempty"`
}

func (r *beirReport) print(w io.Writer, dir string) {
	fmt.Fprintf(w, "dataset        %s\n", dir)
	fmt.Fprintf(w, "documents      %d\nqueries        %d\n", r.Docs, r.Queries)
	fmt.Fprintf(w, "nDCG@10        %.4f\nrecall@100     %.4f\nMRR@10         %.4f\n", r.NDCG10, r.Recall100, r.MRR10)
	fmt.Fprintf(w, "index seconds  %.2f\nquery p50      %.2f ms\nquery p95      %.2f ms\n", r.IndexSeconds, r.QueryP50MS, r.QueryP95MS)
	if r.NoEmbedP95MS > 0 {
		fmt.Fprintf(w, "without the query embedding (in the daemon): p50 %.2f ms, p95 %.2f ms\n", r.NoEmbedP50MS, r.NoEmbedP95MS)
	}
	if len(r.Peers) == 0 {
		return
	}
	fmt.Fprintf(w, "\nside by side (rankings of distinct documents; latency: a k = 10 round trip, ragd through its socket, peers through a pipe)\n")
	fmt.Fprintf(w, "%-13s %8s %10s %8s %9s %9s %9s\n", "engine", "nDCG@10", "recall@100", "MRR@10", "index s", "p50 ms", "p95 ms")
	for _, p := range append([]*beirReport{r}, r.Peers...) {
		fmt.Fprintf(w, "%-13s %8.4f %10.4f %8.4f %9.2f %9.2f %9.2f\n", p.Engine, p.NDCG10, p.Recall100, p.MRR10, p.IndexSeconds, p.QueryP50MS, p.QueryP95MS)
	}
}

type beirDoc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// evalBEIR writes the corpus as a vault (one Markdown file per document,
// its title as the H1), indexes it with a throwaway ragd and runs every
// judged query.
func evalBEIR(ctx context.Context, bin, tmp, dir, extra string, rets []retrieval, peers peerSet) ([]*beirReport, error) {
	qrels, err := readQrels(filepath.Join(dir, "qrels", "test.tsv"))
	if err != nil {
		return nil, err
	}
	queries, err := readQueries(filepath.Join(dir, "queries.jsonl"), qrels)
	if err != nil {
		return nil, err
	}
	vault := filepath.Join(tmp, "vault")
	pathToID, err := writeCorpus(filepath.Join(dir, "corpus.jsonl"), vault)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	t, err := startThrowaway(bin, tmp, vault, extra)
	if err != nil {
		return nil, err
	}
	defer t.stop()
	if err := t.waitIdle(ctx); err != nil {
		return nil, err
	}
	indexed := time.Since(start).Seconds()
	var reps []*beirReport
	for _, ret := range rets {
		t.ret = ret
		rep, err := t.evalQueries(ctx, queries, qrels, pathToID)
		if err != nil {
			return nil, err
		}
		rep.Config, rep.Engine, rep.Docs, rep.IndexSeconds = ret.name, "ragd", len(pathToID), indexed
		reps = append(reps, rep)
	}
	t.stop()
	texts := make([]string, len(queries))
	for i, q := range queries {
		texts[i] = q.text
	}
	for _, engine := range peers.engines {
		run, err := peers.ask(tmp, engine, peer.Source{BEIR: filepath.Join(dir, "corpus.jsonl")}, texts)
		if err != nil {
			return nil, err
		}
		rep := scoreBEIR(queries, qrels, run.rankings)
		rep.Engine, rep.Docs, rep.IndexSeconds = engine, len(pathToID), run.indexSeconds
		rep.QueryP50MS, rep.QueryP95MS = metrics.Percentile(run.lat, 50), metrics.Percentile(run.lat, 95)
		reps[0].Peers = append(reps[0].Peers, rep)
	}
	return reps, nil
}

// evalQueries runs every judged query with t.ret and scores the rankings.
func (t *throwaway) evalQueries(ctx context.Context, queries []evalQuery, qrels map[string]metrics.Judgments, pathToID map[string]string) (*beirReport, error) {
	texts := make([]string, len(queries))
	for i, q := range queries {
		texts[i] = q.text
	}
	lat, noEmbed, err := t.latencies(ctx, texts)
	if err != nil {
		return nil, err
	}
	rankings := make([][]string, len(queries))
	for i, q := range queries {
		paths, err := t.rank(ctx, q.text)
		if err != nil {
			return nil, fmt.Errorf("query %s: %w", q.id, err)
		}
		rankings[i] = make([]string, len(paths))
		for j, p := range paths {
			rankings[i][j] = pathToID[p]
		}
	}
	rep := scoreBEIR(queries, qrels, rankings)
	rep.QueryP50MS = metrics.Percentile(lat, 50)
	rep.QueryP95MS = metrics.Percentile(lat, 95)
	if len(noEmbed) > 0 {
		rep.NoEmbedP50MS = metrics.Percentile(noEmbed, 50)
		rep.NoEmbedP95MS = metrics.Percentile(noEmbed, 95)
	}
	return rep, nil
}

// scoreBEIR averages the metrics of the queries' rankings (index-aligned
// with queries).
func scoreBEIR(queries []evalQuery, qrels map[string]metrics.Judgments, rankings [][]string) *beirReport {
	rep := &beirReport{}
	for i, q := range queries {
		ids := rankings[i]
		rel := qrels[q.id]
		rep.NDCG10 += metrics.NDCG(ids, rel, 10)
		rep.Recall100 += metrics.Recall(ids, rel, 100)
		rep.MRR10 += metrics.MRR(ids, rel, 10)
		rep.Queries++
	}
	if rep.Queries > 0 {
		n := float64(rep.Queries)
		rep.NDCG10, rep.Recall100, rep.MRR10 = rep.NDCG10/n, rep.Recall100/n, rep.MRR10/n
	}
	return rep
}

// beirQuestions returns the text of a dataset's judged queries.
func beirQuestions(dir string) ([]string, error) {
	qrels, err := readQrels(filepath.Join(dir, "qrels", "test.tsv"))
	if err != nil {
		return nil, err
	}
	queries, err := readQueries(filepath.Join(dir, "queries.jsonl"), qrels)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(queries))
	for i, q := range queries {
		out[i] = q.text
	}
	return out, nil
}

// readQrels reads query-id, corpus-id, score lines after a header.
func readQrels(path string) (map[string]metrics.Judgments, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make(map[string]metrics.Judgments)
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Split(strings.TrimSpace(sc.Text()), "\t")
		if line == 1 && len(fields) > 0 && fields[0] == "query-id" || len(fields) == 1 && fields[0] == "" {
			continue
		}
		if len(fields) != 3 {
			return nil, fmt.Errorf("%s:%d: want query-id<TAB>corpus-id<TAB>score", path, line)
		}
		score, err := strconv.Atoi(fields[2])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: score %q: %w", path, line, fields[2], err)
		}
		if out[fields[0]] == nil {
			out[fields[0]] = metrics.Judgments{}
		}
		out[fields[0]][fields[1]] = score
	}
	return out, sc.Err()
}

type evalQuery struct{ id, text string }

// readQueries returns the queries that have judgments, in file order.
func readQueries(path string, qrels map[string]metrics.Judgments) ([]evalQuery, error) {
	var out []evalQuery
	err := peer.EachJSONLine(path, func(line []byte) error {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		if _, ok := qrels[q.ID]; ok {
			out = append(out, evalQuery{q.ID, q.Text})
		}
		return nil
	})
	return out, err
}

// writeCorpus writes one Markdown file per document and returns the map
// from vault-relative path to document id.
func writeCorpus(path, vault string) (map[string]string, error) {
	if err := os.MkdirAll(vault, 0o755); err != nil {
		return nil, err
	}
	out := make(map[string]string)
	err := peer.EachJSONLine(path, func(line []byte) error {
		var d beirDoc
		if err := json.Unmarshal(line, &d); err != nil {
			return err
		}
		name := fileName(d.ID) + ".md"
		var b strings.Builder
		if t := strings.TrimSpace(d.Title); t != "" {
			b.WriteString("# " + strings.Join(strings.Fields(t), " ") + "\n\n")
		}
		b.WriteString(strings.TrimSpace(d.Text) + "\n")
		out[name] = d.ID
		return os.WriteFile(filepath.Join(vault, name), []byte(b.String()), 0o644)
	})
	return out, err
}

// fileName makes a document id safe as a file name.
func fileName(id string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 || r == ':' {
			return '_'
		}
		return r
	}, id)
}
