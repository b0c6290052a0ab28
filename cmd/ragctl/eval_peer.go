package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/ragd/ragd/bench/peer"
	"github.com/ragd/ragd/query/metrics"
)

// peerSet is the peer engines an eval runs beside ragd (none when empty),
// each in a ragd-peer process of its own.
type peerSet struct {
	bin     string
	engines []string
}

// choosePeers resolves -peer: a comma-separated list of engines, where
// "fts5" picks the tokenizer from the questions — trigram when most of
// them are Chinese, Japanese or Korean, porter when almost none are, both
// in between.
func choosePeers(flag string, questions []string, log io.Writer) ([]string, error) {
	if flag == "" {
		return nil, nil
	}
	var out []string
	for _, name := range strings.Split(flag, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(peer.Engines, name) {
			return nil, fmt.Errorf("unknown peer %q: use %s", name, strings.Join(peer.Engines, ", "))
		}
		if name != peer.EngineFTS5 {
			out = append(out, name)
			continue
		}
		share := cjkShare(questions)
		chosen := []string{peer.EngineFTS5}
		switch {
		case share >= 0.5:
			chosen = []string{peer.EngineFTS5Trigram}
		case share >= 0.1:
			chosen = append(chosen, peer.EngineFTS5Trigram)
		}
		if share >= 0.1 {
			fmt.Fprintf(log, "ragctl eval: %.0f %% of the questions are CJK: -peer fts5 runs %s\n", 100*share, strings.Join(chosen, " and "))
		}
		out = append(out, chosen...)
	}
	return metrics.Dedup(out), nil
}

// cjkShare is the share of questions written mostly (more than half of
// their letters) in Han, Hiragana, Katakana or Hangul.
func cjkShare(questions []string) float64 {
	if len(questions) == 0 {
		return 0
	}
	n := 0
	for _, q := range questions {
		letters, cjk := 0, 0
		for _, r := range q {
			if unicode.IsLetter(r) {
				letters++
				if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
					cjk++
				}
			}
		}
		if 2*cjk > letters {
			n++
		}
	}
	return float64(n) / float64(len(questions))
}

// peerRun is what one peer answered.
type peerRun struct {
	rankings     [][]string // per query, evalDepth distinct documents at most
	indexSeconds float64    // from start to ready
	lat          []float64  // k = 10 round trips through the pipe, ms
}

// ask starts engine on src (its index under tmp), times a k = 10 pass over
// the queries, then ranks evalDepth documents for each.
func (ps peerSet) ask(tmp, engine string, src peer.Source, queries []string) (*peerRun, error) {
	start := time.Now()
	p, err := peer.Start(ps.bin, peer.Args(engine, filepath.Join(tmp, "peer-"+engine), src))
	if err != nil {
		return nil, err
	}
	defer p.Kill()
	run := &peerRun{indexSeconds: time.Since(start).Seconds()}
	for _, q := range queries {
		t0 := time.Now()
		if _, err := p.Search(q, 10); err != nil {
			return nil, fmt.Errorf("%s: query %q: %w", engine, q, err)
		}
		run.lat = append(run.lat, float64(time.Since(t0).Microseconds())/1000)
	}
	for _, q := range queries {
		ids, err := p.Search(q, evalDepth)
		if err != nil {
			return nil, fmt.Errorf("%s: query %q: %w", engine, q, err)
		}
		run.rankings = append(run.rankings, metrics.Dedup(ids))
	}
	if _, err := p.Close(); err != nil {
		return nil, err
	}
	return run, nil
}
