package peer

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"
)

// Opener opens the named engine's index in dir, creating an empty one when
// there is none; existed says an index was found.
type Opener func(engine, dir string) (eng Engine, existed bool, err error)

// Main is ragd-peer: it parses args, builds or opens the index, writes the
// ready line on stdout and serves requests from stdin until it closes.
func Main(args []string, open Opener, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ragd-peer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	engine := fs.String("engine", EngineFTS5, "search engine: "+strings.Join(Engines, ", "))
	index := fs.String("index", "", "index directory: opened if it holds this engine's index, else built")
	vault := fs.String("vault", "", "folder of notes to index (.md, .markdown, .txt)")
	beir := fs.String("beir", "", "BEIR corpus.jsonl to index")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *index == "" || (*vault == "") == (*beir == "") || !slices.Contains(Engines, *engine) {
		fmt.Fprintf(stderr, "usage: ragd-peer -engine %s -index DIR (-vault DIR | -beir corpus.jsonl)\n", strings.Join(Engines, "|"))
		return 2
	}
	ready, eng, err := openOrBuild(*engine, *index, Source{Vault: *vault, BEIR: *beir}, open)
	if err != nil {
		ready.Error = err.Error()
	}
	if werr := json.NewEncoder(stdout).Encode(ready); werr != nil || err != nil {
		fmt.Fprintf(stderr, "ragd-peer: %v\n", errors.Join(err, werr))
		return 1
	}
	var load func(string) (Doc, bool, error)
	if *vault != "" {
		load = func(rel string) (Doc, bool, error) { return VaultDoc(*vault, rel) }
	}
	err = Serve(eng, load, stdin, stdout)
	if cerr := eng.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintf(stderr, "ragd-peer: %v\n", err)
		return 1
	}
	return 0
}

func openOrBuild(engine, dir string, src Source, open Opener) (Ready, Engine, error) {
	ready := Ready{Engine: engine}
	start := time.Now()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ready, nil, err
	}
	eng, existed, err := open(engine, dir)
	if err != nil {
		return ready, nil, err
	}
	if !existed {
		each := VaultDocs(src.Vault)
		if src.BEIR != "" {
			each = BEIRDocs(src.BEIR)
		}
		if err := eng.Build(each); err != nil {
			eng.Close()
			return ready, nil, fmt.Errorf("build: %w", err)
		}
	}
	n, err := eng.Count()
	if err != nil {
		eng.Close()
		return ready, nil, err
	}
	ready.Docs, ready.Opened = n, existed
	ready.IndexMS = float64(time.Since(start).Microseconds()) / 1000
	return ready, eng, nil
}
