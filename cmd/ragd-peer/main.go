// Command ragd-peer runs one of the search engines ragd is measured
// against — SQLite FTS5 (porter unicode61 or trigram) or Bleve — over a
// folder of notes or a BEIR corpus, and answers queries as JSON lines on
// stdin and stdout. `ragctl eval -peer` and `ragd-bench scale` start it;
// it is a program of its own so that neither engine is linked into ragd or
// ragctl, and so that each engine's whole-process memory can be measured.
//
//	ragd-peer -engine fts5|fts5-trigram|bleve -index DIR (-vault DIR | -beir corpus.jsonl)
//
// The first line written is a peer.Ready; then one peer.Response per
// peer.Request read, until stdin closes.
package main

import (
	"fmt"
	"os"

	"github.com/ragd/ragd/bench/peer"
	"github.com/ragd/ragd/bench/peer/blevepeer"
	"github.com/ragd/ragd/bench/peer/fts5"
)

func main() {
	os.Exit(peer.Main(os.Args[1:], open, os.Stdin, os.Stdout, os.Stderr))
}

func open(engine, dir string) (peer.Engine, bool, error) {
	switch engine {
	case peer.EngineFTS5:
		return fts5.Open(dir, fts5.Porter)
	case peer.EngineFTS5Trigram:
		return fts5.Open(dir, fts5.Trigram)
	case peer.EngineBleve:
		return blevepeer.Open(dir)
	}
	return nil, false, fmt.Errorf("unknown engine %q", engine)
}
