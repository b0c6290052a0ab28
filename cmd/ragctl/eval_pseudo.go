package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ragd/ragd/query/metrics"
)

// pseudoMax is how many self-supervised questions -pseudo asks at most.
const pseudoMax = 300

// genericHeadings say nothing about a section's subject.
var genericHeadings = map[string]bool{
	"notes": true, "links": true, "references": true, "see also": true, "summary": true, "todo": true,
	"related": true, "sources": true, "overview": true, "introduction": true, "resources": true,
}

// pseudoQuestions makes questions from a vault's own notes, the
// self-supervision of seed 004's calibration: each second- or third-level
// heading of two words or more is a query whose answer is its note. At
// most max are kept, spread evenly over the sorted list.
func pseudoQuestions(dir string, max int) ([]vaultQuestion, error) {
	var all []vaultQuestion
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); p != dir && (strings.HasPrefix(name, ".") || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.EqualFold(filepath.Ext(p), ".md") {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		hs, err := noteHeadings(p)
		if err != nil {
			return err
		}
		for _, h := range hs {
			all = append(all, vaultQuestion{text: h, files: metrics.Judgments{filepath.ToSlash(rel): 1}})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("%s: no Markdown headings of two words or more to ask", dir)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].text < all[j].text })
	if len(all) <= max {
		return all, nil
	}
	out := make([]vaultQuestion, 0, max)
	for i := 0; i < max; i++ {
		out = append(out, all[i*len(all)/max])
	}
	return out, nil
}

// noteHeadings returns the usable ## and ### headings of a note, outside
// code fences.
func noteHeadings(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	fence := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fence = !fence
			continue
		}
		if fence || !(strings.HasPrefix(line, "## ") || strings.HasPrefix(line, "### ")) {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(line, "#"))
		if len(strings.Fields(h)) >= 2 && !genericHeadings[strings.ToLower(h)] {
			out = append(out, h)
		}
	}
	return out, sc.Err()
}

// printVaultSweep prints a sweep over a vault and names the best setting.
func printVaultSweep(w io.Writer, dir string, reps []*vaultReport) {
	fmt.Fprintf(w, "vault %s: %d questions, indexed and embedded in %.1f s\n\n", dir, reps[0].Queries, reps[0].IndexSeconds)
	fmt.Fprintf(w, "%s\n\n", metricsLegend)
	fmt.Fprintf(w, "%-26s %9s %9s %9s %8s %10s\n", "retrieval", "success@5", "recall@5", "recall@10", "MRR@10", "recall@100")
	best := 0
	for i, r := range reps {
		fmt.Fprintf(w, "%-26s %9.4f %9.4f %9.4f %8.4f %10.4f\n", r.Config, r.Success5, r.Recall5, r.Recall10, r.MRR10, r.Recall100)
		if r.MRR10 > reps[best].MRR10 {
			best = i
		}
	}
	fmt.Fprintf(w, "\nbest by MRR@10: %s\n", reps[best].Config)
}
