package main

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/ragd/ragd/ipc"
)

// embedderConfig is the config added to the throwaway ragd for -embedder:
// a [[plugin]] of that built-in and [search] using it.
func embedderConfig(name, opts string) (string, error) {
	if name == "" {
		if opts != "" {
			return "", fmt.Errorf("-embedder-options needs -embedder")
		}
		return "", nil
	}
	if !regexp.MustCompile(`^[a-z0-9-]+$`).MatchString(name) {
		return "", fmt.Errorf("bad embedder name %q", name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n[[plugin]]\nname = \"embed\"\nkind = \"embedder\"\nbuiltin = %q\ntimeout = \"10m\"\n", name)
	if opts != "" {
		b.WriteString("[plugin.options]\n")
		for _, kv := range strings.Split(opts, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return "", fmt.Errorf("bad embedder option %q: want KEY=VALUE", kv)
			}
			if _, err := strconv.ParseFloat(v, 64); err == nil || v == "true" || v == "false" {
				fmt.Fprintf(&b, "%s = %s\n", k, v)
			} else {
				fmt.Fprintf(&b, "%s = %q\n", k, v)
			}
		}
	}
	b.WriteString("\n[search]\nembedder = \"embed\"\n")
	return b.String(), nil
}

// sweepConfigs are the retrieval settings -sweep compares: each channel
// alone, and hybrids under both fusion functions over a range of vector
// weights (seed 004's RRF weights among them: lexical 0.7, semantic 0.8).
func sweepConfigs() []retrieval {
	out := []retrieval{
		{name: "lexical (bm25)", mode: ipc.ModeLexical},
		{name: "lexical, no rerank", mode: ipc.ModeLexical, noRerank: true},
		{name: "vector", mode: ipc.ModeVector},
	}
	for _, w := range []float64{0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1.2} {
		out = append(out, retrieval{name: fmt.Sprintf("hybrid convex v=%.2f", w), mode: ipc.ModeHybrid, fusion: ipc.FusionConvex,
			channels: []string{ipc.ChannelLexical, ipc.ChannelVector}, weights: map[string]float64{ipc.ChannelLexical: 1, ipc.ChannelVector: w}})
	}
	for _, w := range []float64{0.1, 0.3, 0.8 / 0.7} {
		out = append(out, retrieval{name: fmt.Sprintf("hybrid rrf v=%.2f", w), mode: ipc.ModeHybrid, fusion: ipc.FusionRRF,
			channels: []string{ipc.ChannelLexical, ipc.ChannelVector}, weights: map[string]float64{ipc.ChannelLexical: 1, ipc.ChannelVector: w}})
	}
	out = append(out, retrieval{name: "daemon default (hybrid)"})
	return out
}

func printSweep(w io.Writer, dir string, reps []*beirReport) {
	fmt.Fprintf(w, "dataset %s: %d documents, %d queries, indexed and embedded in %.1f s\n\n",
		dir, reps[0].Docs, reps[0].Queries, reps[0].IndexSeconds)
	fmt.Fprintf(w, "%-26s %8s %10s %8s %9s %9s %16s\n", "retrieval", "nDCG@10", "recall@100", "MRR@10", "p50 ms", "p95 ms", "p95 w/o embed ms")
	for _, r := range reps {
		fmt.Fprintf(w, "%-26s %8.4f %10.4f %8.4f %9.2f %9.2f %16.2f\n", r.Config, r.NDCG10, r.Recall100, r.MRR10, r.QueryP50MS, r.QueryP95MS, r.NoEmbedP95MS)
	}
}
