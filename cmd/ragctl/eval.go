package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ragd/ragd/bench/peer"
	"github.com/ragd/ragd/bench/ragdproc"
	"github.com/ragd/ragd/ipc"
)

// evalCmd is ragctl eval.
type evalCmd struct {
	beir, vault, qrels, ragdBin, channels, weights, mode, fusion, embedder, embOpts string
	peers, peerBin                                                                  string
	asJSON, keep, sweep, pseudo                                                     bool
}

func (c *evalCmd) flags(fs *FlagSet) {
	fs.path(&c.beir, "beir", true, "BEIR dataset `directory` (corpus.jsonl, queries.jsonl, qrels/test.tsv)")
	fs.path(&c.vault, "vault", true, "vault `directory` to evaluate on (with -qrels)")
	fs.path(&c.qrels, "qrels", false, "questions `file`: question<TAB>path[;path…][<TAB>kind] per line")
	fs.path(&c.ragdBin, "ragd", false, "ragd `binary` to start (default: next to ragctl, then $PATH)")
	fs.BoolVar(&c.asJSON, "json", false, "print JSON")
	fs.BoolVar(&c.keep, "keep", false, "keep the temporary directory and print its path")
	fs.StringVar(&c.channels, "channels", "", "comma-separated retrieval channels to use (bm25, vector, graph); default all")
	fs.StringVar(&c.weights, "weights", "", "fusion weights, e.g. bm25=1,vector=0.2; default the daemon's")
	fs.choice(&c.mode, "mode", "", modes, "hybrid, lexical or vector (default the daemon's: hybrid)")
	fs.choice(&c.fusion, "fusion", "", ipc.Fusions, "convex or rrf (default the daemon's)")
	fs.choice(&c.embedder, "embedder", "", []string{"uselite", "ollama", "openai"}, "built-in embedder to index with (uselite, ollama, openai); default none")
	fs.StringVar(&c.embOpts, "embedder-options", "", "its options, e.g. model=nomic-embed-text,dimensions=256")
	fs.BoolVar(&c.sweep, "sweep", false, "with -embedder: measure lexical, vector and hybrid under convex and RRF fusion side by side")
	fs.BoolVar(&c.pseudo, "pseudo", false, "with -vault instead of -qrels: ask the vault's own headings as queries (self-supervised; with -sweep it calibrates the fusion weights on your notes)")
	fs.Var(&wordsFlag{p: &c.peers, words: peer.Engines}, "peer", "also rank with these `engines`, side by side: fts5 (porter, or trigram for CJK questions), fts5-trigram, bleve")
	fs.path(&c.peerBin, "peer-bin", false, "ragd-peer `binary` (default: next to ragctl, then $PATH)")
}

func (c *evalCmd) run(ctx context.Context, e *env, args []string) int {
	beir, vault, qrels, ragdBin, asJSON, keep := &c.beir, &c.vault, &c.qrels, &c.ragdBin, &c.asJSON, &c.keep
	channels, weights, mode, fusion, embedder, embOpts := &c.channels, &c.weights, &c.mode, &c.fusion, &c.embedder, &c.embOpts
	sweep, pseudo := &c.sweep, &c.pseudo
	if len(args) > 0 {
		return e.usage("eval", "no arguments expected")
	}
	if (*beir == "") == (*vault == "") || (*vault != "" && (*qrels == "") == !*pseudo) {
		return e.usage("eval", "give -beir DIR, or -vault DIR with -qrels FILE or -pseudo")
	}
	bin, tmp, cleanup, err := prepareRun(e, "eval", *ragdBin, *keep)
	if err != nil {
		return e.fail(err)
	}
	defer cleanup()
	var chans []string
	if *channels != "" {
		chans = strings.Split(*channels, ",")
	}
	ws, err := parseWeights(*weights)
	if err != nil {
		fmt.Fprintf(e.stderr, "ragctl eval: %v\n", err)
		return exitUsage
	}
	ret := retrieval{channels: chans, weights: ws, mode: *mode, fusion: *fusion}
	extra, err := embedderConfig(*embedder, *embOpts)
	if err != nil {
		fmt.Fprintf(e.stderr, "ragctl eval: %v\n", err)
		return exitUsage
	}
	rets := []retrieval{ret}
	if *sweep {
		if *embedder == "" {
			fmt.Fprintln(e.stderr, "ragctl eval: -sweep needs -embedder")
			return exitUsage
		}
		rets = sweepConfigs()
	}
	ps := peerSet{}
	if c.peers != "" {
		if ps.bin, err = peer.Find(c.peerBin); err != nil {
			return e.fail(err)
		}
	}
	if *beir != "" {
		qs, err := beirQuestions(*beir)
		if err != nil {
			return e.fail(err)
		}
		if ps.engines, err = choosePeers(c.peers, qs, e.stderr); err != nil {
			return e.usage("eval", err.Error())
		}
		reps, err := evalBEIR(ctx, bin, tmp, *beir, extra, rets, ps)
		if err != nil {
			return e.fail(err)
		}
		switch {
		case *asJSON && len(reps) == 1:
			writeJSON(e.stdout, reps[0])
		case *asJSON:
			writeJSON(e.stdout, reps)
		case len(reps) == 1:
			reps[0].print(e.stdout, *beir)
		default:
			printSweep(e.stdout, *beir, reps)
		}
		return exitOK
	}
	var qs []vaultQuestion
	if *pseudo {
		qs, err = pseudoQuestions(*vault, pseudoMax)
	} else {
		qs, err = readVaultQuestions(*qrels)
	}
	if err != nil {
		return e.fail(err)
	}
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.text
	}
	if ps.engines, err = choosePeers(c.peers, texts, e.stderr); err != nil {
		return e.usage("eval", err.Error())
	}
	reps, err := evalVault(ctx, bin, tmp, *vault, qs, extra, rets, ps)
	if err != nil {
		return e.fail(err)
	}
	switch {
	case *asJSON && len(reps) == 1:
		writeJSON(e.stdout, reps[0])
	case *asJSON:
		writeJSON(e.stdout, reps)
	case len(reps) == 1:
		reps[0].print(e.stdout, *vault)
	default:
		printVaultSweep(e.stdout, *vault, reps)
	}
	return exitOK
}

// prepareRun finds the ragd binary and makes the temporary directory of an
// eval or bench run; cleanup removes it unless keep is set, in which case
// its path is printed.
func prepareRun(e *env, what, ragdBin string, keep bool) (bin, tmp string, cleanup func(), err error) {
	if bin, err = findRagd(ragdBin); err != nil {
		return "", "", nil, err
	}
	if tmp, err = os.MkdirTemp("", "ragd-"+what+"-"); err != nil {
		return "", "", nil, err
	}
	if keep {
		fmt.Fprintf(e.stderr, "ragctl %s: working in %s\n", what, tmp)
		return bin, tmp, func() {}, nil
	}
	return bin, tmp, func() { os.RemoveAll(tmp) }, nil
}

func findRagd(flagged string) (string, error) {
	if flagged != "" {
		return flagged, nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "ragd")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath("ragd")
	if err != nil {
		return "", errors.New("cannot find the ragd binary: build it (make build) or pass -ragd PATH")
	}
	return p, nil
}

// throwaway is a ragd started on a temporary config, data dir and socket,
// with the retrieval settings of its evaluation queries.
type throwaway struct {
	*ragdproc.Daemon
	ret retrieval // channels and weights of every query
}

// retrieval selects mode, channels, fusion and weights for evaluation
// queries.
type retrieval struct {
	name     string // for a sweep's table
	mode     string
	fusion   string
	noRerank bool
	channels []string
	weights  map[string]float64
}

func (r retrieval) request(q string, k int, noText bool) ipc.SearchRequest {
	return ipc.SearchRequest{Query: q, K: k, NoText: noText, Mode: r.mode, Fusion: r.fusion,
		Channels: r.channels, Weights: r.weights, NoRerank: r.noRerank}
}

// startThrowaway writes a config indexing vaultDir and starts ragd on it;
// extra is appended to the config (plugins, [search]).
func startThrowaway(bin, tmp, vaultDir, extra string) (*throwaway, error) {
	if err := ragdproc.WriteConfig(tmp, vaultDir, extra); err != nil {
		return nil, err
	}
	return launch(bin, tmp)
}

// launch starts ragd on the config written in tmp, appending to its log.
func launch(bin, tmp string) (*throwaway, error) {
	d, err := ragdproc.Start(bin, tmp)
	if err != nil {
		return nil, err
	}
	return &throwaway{Daemon: d}, nil
}

// waitIdle waits until ragd has indexed (and embedded) everything,
// polling its status at most every 100 ms.
func (t *throwaway) waitIdle(ctx context.Context) error {
	return t.WaitIdle(ctx, 100*time.Millisecond, nil)
}

// stop ends ragd (at most once: it may be called early and deferred).
func (t *throwaway) stop() { t.Stop() }

// latencies times, in a pass of its own, the search a person or an editor
// sends for each query: k = 10, with text. Keeping it apart from the
// k = 100 ranking requests keeps the figure from measuring the decoding
// (and garbage collection) of a hundred results nobody reads.
//
// noEmbed is the daemon's own time per query minus the time spent
// embedding it (which depends on the embedder, not on ragd); it is empty
// when no query was embedded.
func (t *throwaway) latencies(ctx context.Context, queries []string) (lat, noEmbed []float64, err error) {
	lat = make([]float64, 0, len(queries))
	embedded := false
	for _, q := range queries {
		start := time.Now()
		resp, err := t.Client.Search(ctx, t.ret.request(q, ipc.DefaultK, false))
		ms := float64(time.Since(start).Microseconds()) / 1000
		var ie *ipc.Error
		if err != nil && !(errors.As(err, &ie) && ie.Status == 400) {
			return nil, nil, err
		}
		lat = append(lat, ms)
		if resp != nil && err == nil {
			noEmbed = append(noEmbed, resp.TookMS-resp.EmbedMS)
			embedded = embedded || resp.EmbedMS > 0
		}
	}
	if !embedded {
		noEmbed = nil
	}
	return lat, noEmbed, nil
}

// parseWeights reads "bm25=1,graph=0.5".
func parseWeights(s string) (map[string]float64, error) {
	if s == "" {
		return nil, nil
	}
	out := map[string]float64{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		f, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil || k == "" {
			return nil, fmt.Errorf("bad weight %q: want CHANNEL=NUMBER", kv)
		}
		out[k] = f
	}
	return out, nil
}
