// Package scale is the scale benchmark behind `make bench-scale`: for
// synthetic vaults at multiples of obsidian-hub's size (bench/vaultgen) it
// measures ragd — cold index, peak and idle memory, index size, warm
// restart, query latency through the socket, save → searchable, and status
// latency while indexing — beside SQLite FTS5 and Bleve run as ragd-peer
// processes, alternately, several times, and prints medians, ratios and
// how each figure grows with the vault.
package scale

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/ragd/ragd/bench/vaultgen"
)

// sources are where generated vaults take their text from.
type sources struct {
	hub, corpus, cache string
	seed               uint64
	meanBytes          int
}

func (s *sources) flags(fs *flag.FlagSet) {
	fs.StringVar(&s.hub, "hub", filepath.Join("..", "shared", "vaults", "obsidian-hub"), "source vault: its notes give text, and 1× is its note count")
	fs.StringVar(&s.corpus, "corpus", filepath.Join("..", "shared", "eval", "scifact", "corpus.jsonl"), "BEIR corpus.jsonl whose abstracts give text")
	fs.StringVar(&s.cache, "cache", filepath.Join(os.TempDir(), "ragd-bench-vaults"), "directory for generated vaults (reused when present)")
	fs.Uint64Var(&s.seed, "seed", 1, "generator seed")
	fs.IntVar(&s.meanBytes, "mean-bytes", 2500, "mean note size in bytes")
}

// notesAt returns the note count of scale × the source vault's notes.
func (s *sources) notesAt(scale float64) (int, error) {
	n := 0
	err := filepath.WalkDir(s.hub, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".obsidian" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			n++
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("source vault: %w", err)
	}
	return max(1, int(math.Round(scale*float64(n)))), nil
}

// vault returns the generated vault of notes notes, made if needed.
func (s *sources) vault(notes int, log io.Writer) (string, *vaultgen.Manifest, error) {
	return vaultgen.Cached(s.cache, vaultgen.Options{Notes: notes, Seed: s.seed, MeanBytes: s.meanBytes}, func() (*vaultgen.Source, error) {
		fmt.Fprintf(log, "generating %d notes from %s and %s into %s …\n", notes, s.hub, s.corpus, s.cache)
		return vaultgen.LoadSource(s.hub, s.corpus)
	})
}

// GenMain is `ragd-bench gen`: it makes (or finds) a generated vault and
// prints its path.
func GenMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ragd-bench gen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var src sources
	src.flags(fs)
	scale := fs.Float64("scale", 1, "size as a multiple of the source vault's note count")
	notes := fs.Int("notes", 0, "exact note count (instead of -scale)")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return 2
	}
	n := *notes
	if n <= 0 {
		var err error
		if n, err = src.notesAt(*scale); err != nil {
			fmt.Fprintf(stderr, "ragd-bench gen: %v\n", err)
			return 1
		}
	}
	dir, m, err := src.vault(n, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ragd-bench gen: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "%d notes, %.1f MB, %d folders, %d links\n", m.Notes, float64(m.Bytes)/1e6, m.Folders, m.Links)
	fmt.Fprintln(stdout, dir)
	return 0
}
