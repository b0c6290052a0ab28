package segment_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/index/graph"
	"github.com/ragd/ragd/index/segment"
	"github.com/ragd/ragd/query/metrics"
)

// The ranking harness: index a vault in process (no daemon) and score a
// question set, per kind, for tuning. It runs only when asked:
//
//	go test ./index/segment -run VaultEval -v -rank.vault ../shared/vaults/obsidian-hub \
//	    -rank.qrels docs/eval/obsidian-hub-questions.tsv [-rank.params 'NoteRest=0.3,Anchor=0']
var (
	rankVault    = flag.String("rank.vault", "", "vault to index for the ranking harness")
	rankQrels    = flag.String("rank.qrels", "", "question file (question<TAB>paths<TAB>kind)")
	rankParams   = flag.String("rank.params", "", "comma-separated Name=value overrides of segment.DefaultParams; ';' separates settings to compare")
	rankDumpFile = flag.String("rank.dump", "", "file to write every query's ranking to (ids, scores, passages), to compare two versions of the scorer")
)

type question struct {
	text, kind string
	rel        metrics.Judgments
}

func readQuestions(t *testing.T, p string) []question {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var qs []question
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		q := question{text: parts[0], kind: "unlabelled", rel: metrics.Judgments{}}
		if len(parts) > 2 {
			q.kind = strings.TrimSpace(parts[2])
		}
		for _, p := range strings.Split(parts[1], ";") {
			if p = strings.TrimSpace(p); p != "" {
				q.rel[p] = 1
			}
		}
		qs = append(qs, q)
	}
	return qs
}

// loadVault chunks and prepares every Markdown note of dir.
func loadVault(t testing.TB, an *analyze.Analyzer, dir string) ([]*segment.Note, map[string][]uint64) {
	var notes []*segment.Note
	names := map[string][]uint64{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != dir {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.EqualFold(path.Ext(p), ".md") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		cd, err := chunk.Markdown(src, chunk.Options{})
		if err != nil {
			return nil
		}
		fi, _ := d.Info()
		doc := index.Document{Vault: "v", Path: rel, ModTime: fi.ModTime()}
		pr := index.Prepare(an, doc, cd, strings.TrimSuffix(path.Base(rel), path.Ext(rel)))
		n := pr.Note()
		n.ID = uint64(len(notes) + 1)
		notes = append(notes, n)
		keys := []string{graph.NameKey(rel), graph.NameKey(path.Base(rel))}
		for _, a := range pr.Doc.Aliases {
			keys = append(keys, graph.NameKey(a))
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if !seen[k] {
				seen[k] = true
				names["v\x00"+k] = append(names["v\x00"+k], n.ID)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return notes, names
}

// groupsOf analyses a question into query words.
func groupsOf(an *analyze.Analyzer, text string) []segment.Group {
	var gs []segment.Group
	for _, q := range an.Query(text) {
		gs = append(gs, segment.Group{Terms: q.Variants, Pos: q.Pos})
	}
	return gs
}

func parseParams(t *testing.T, spec string) segment.Params {
	p := segment.DefaultParams
	if spec == "" {
		return p
	}
	fields := map[string]*float64{"K1": &p.K1, "B": &p.B, "Body": &p.Body, "Heading": &p.Heading, "Title": &p.Title,
		"BNote": &p.BNote, "Alias": &p.Alias, "Props": &p.Props, "Tags": &p.Tags, "Anchor": &p.Anchor,
		"AnchorContext": &p.AnchorContext, "NoteBM25": &p.NoteBM25, "Proximity": &p.Proximity}
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(kv), "=")
		if k == "ProxDepth" {
			if _, err := fmt.Sscan(v, &p.ProxDepth); err != nil {
				t.Fatalf("parameter %s: %v", k, err)
			}
			continue
		}
		f := fields[k]
		if f == nil {
			t.Fatalf("unknown parameter %q", k)
		}
		if _, err := fmt.Sscan(v, f); err != nil {
			t.Fatalf("parameter %s: %v", k, err)
		}
	}
	return p
}

func TestVaultEval(t *testing.T) {
	if *rankVault == "" || *rankQrels == "" {
		t.Skip("ranking harness: give -rank.vault and -rank.qrels")
	}
	an := analyze.New()
	t0 := time.Now()
	notes, names := loadVault(t, an, *rankVault)
	set, _, err := segment.OpenSet(segment.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	set.Apply(1, nil, notes)
	v := set.View()
	defer v.Release()
	pathOf := map[uint64]string{}
	for _, n := range notes {
		pathOf[n.ID] = n.Path
	}
	t.Logf("indexed %d notes in %v", len(notes), time.Since(t0))
	qs := readQuestions(t, *rankQrels)
	resolve := func(key string) []uint64 { return names[key] }
	dump := newRankDump(t)
	defer dump.close()
	for _, spec := range strings.Split(*rankParams, ";") {
		p := parseParams(t, spec)
		type agg struct{ n, succ5, rec5, mrr float64 }
		per := map[string]*agg{}
		all := &agg{}
		for _, q := range qs {
			hits := v.Search(segment.Query{Groups: groupsOf(an, q.text), K: 100, Passages: 2, Resolve: resolve, ResolveGen: 1}, p)
			dump.add(q.text, hits)
			ranked := make([]string, len(hits))
			for i, h := range hits {
				ranked[i] = pathOf[h.ID]
			}
			a := per[q.kind]
			if a == nil {
				a = &agg{}
				per[q.kind] = a
			}
			s5 := 0.0
			if metrics.Recall(ranked, q.rel, 5) > 0 {
				s5 = 1
			}
			for _, x := range []*agg{a, all} {
				x.n++
				x.succ5 += s5
				x.rec5 += metrics.Recall(ranked, q.rel, 5)
				x.mrr += metrics.MRR(ranked, q.rel, 10)
			}
			if testing.Verbose() && os.Getenv("RANK_MISSES") != "" && metrics.MRR(ranked, q.rel, 10) == 0 {
				top := ranked[:min(3, len(ranked))]
				t.Logf("miss [%s] %q → %v", q.kind, q.text, top)
			}
		}
		kinds := make([]string, 0, len(per))
		for k := range per {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		var b strings.Builder
		fmt.Fprintf(&b, "params %q\n%-12s %4s %8s %8s %8s\n", spec, "kind", "n", "succ@5", "recall@5", "MRR@10")
		for _, k := range append(kinds, "all") {
			a := per[k]
			if k == "all" {
				a = all
			}
			fmt.Fprintf(&b, "%-12s %4.0f %8.3f %8.3f %8.3f\n", k, a.n, a.succ5/a.n, a.rec5/a.n, a.mrr/a.n)
		}
		t.Log("\n" + b.String())
	}
}

var rankBEIR = flag.String("rank.beir", "", "BEIR directory (corpus.jsonl, queries.jsonl, qrels/test.tsv) for the ranking harness")

// TestBEIREval scores a BEIR set in process, documents written as ragctl
// eval writes them (title as the H1, file named by id):
//
//	go test ./index/segment -run BEIREval -v -rank.beir ../shared/eval/scifact [-rank.params …]
func TestBEIREval(t *testing.T) {
	if *rankBEIR == "" {
		t.Skip("ranking harness: give -rank.beir")
	}
	an := analyze.New()
	notes, idOf, queries := loadBEIR(t, an, *rankBEIR)
	qrels := map[string]metrics.Judgments{}
	f, err := os.Open(filepath.Join(*rankBEIR, "qrels", "test.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		var g int
		if len(p) < 3 || p[0] == "query-id" || func() bool { _, err := fmt.Sscan(p[2], &g); return err != nil }() {
			continue
		}
		if qrels[p[0]] == nil {
			qrels[p[0]] = metrics.Judgments{}
		}
		qrels[p[0]][p[1]] = g
	}
	f.Close()
	set, _, err := segment.OpenSet(segment.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	set.Apply(1, nil, notes)
	v := set.View()
	defer v.Release()
	ids := make([]string, 0, len(qrels))
	for id := range qrels {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	dump := newRankDump(t)
	defer dump.close()
	for _, spec := range strings.Split(*rankParams, ";") {
		p := parseParams(t, spec)
		var ndcg, rec float64
		for _, qid := range ids {
			hits := v.Search(segment.Query{Groups: groupsOf(an, queries[qid]), K: 100, Passages: 2}, p)
			dump.add(qid, hits)
			ranked := make([]string, len(hits))
			for i, h := range hits {
				ranked[i] = idOf[h.ID]
			}
			ndcg += metrics.NDCG(ranked, qrels[qid], 10)
			rec += metrics.Recall(ranked, qrels[qid], 100)
		}
		n := float64(len(ids))
		t.Logf("params %-40q nDCG@10 %.4f recall@100 %.4f", spec, ndcg/n, rec/n)
	}
}

// loadBEIR prepares a BEIR set's documents as notes, written as ragctl eval
// writes them (title as the H1, file named by id), and reads its queries.
func loadBEIR(t testing.TB, an *analyze.Analyzer, dir string) (notes []*segment.Note, idOf map[uint64]string, queries map[string]string) {
	idOf = map[uint64]string{}
	readJSONL(t, filepath.Join(dir, "corpus.jsonl"), func(b []byte) {
		var d struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		if tt := strings.TrimSpace(d.Title); tt != "" {
			sb.WriteString("# " + strings.Join(strings.Fields(tt), " ") + "\n\n")
		}
		sb.WriteString(strings.TrimSpace(d.Text) + "\n")
		cd, err := chunk.Markdown([]byte(sb.String()), chunk.Options{})
		if err != nil {
			return
		}
		pr := index.Prepare(an, index.Document{Vault: "v", Path: d.ID + ".md"}, cd, d.ID)
		n := pr.Note()
		n.ID = uint64(len(notes) + 1)
		idOf[n.ID] = d.ID
		notes = append(notes, n)
	})
	queries = map[string]string{}
	readJSONL(t, filepath.Join(dir, "queries.jsonl"), func(b []byte) {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		json.Unmarshal(b, &q)
		queries[q.ID] = q.Text
	})
	return notes, idOf, queries
}

func readJSONL(t testing.TB, p string, fn func([]byte)) {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		fn(sc.Bytes())
	}
}

// TestBuildMatchesOracleOnVault builds obsidian-hub's notes (from
// ../shared/vaults; skipped without it) with the builder and with the
// first Build, which must lay out the same bytes.
func TestBuildMatchesOracleOnVault(t *testing.T) {
	dir := "../../../shared/vaults/obsidian-hub"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared vault %s not available: %v", dir, err)
	}
	notes, _ := loadVault(t, analyze.New(), dir)
	for i := 0; i < len(notes); i += 1500 {
		part := notes[i:min(i+1500, len(notes))]
		if got, want := segment.Build(part), segment.BuildOracle(part); !bytes.Equal(got, want) {
			t.Fatalf("notes %d–%d: the builder's segment (%d bytes) differs from the oracle's (%d bytes)", i, i+len(part), len(got), len(want))
		}
	}
}

// rankDump writes rankings in full (-rank.dump), so that two versions of
// the scorer can be compared hit for hit, not only by their averages.
type rankDump struct {
	t *testing.T
	w *bufio.Writer
	f *os.File
}

func newRankDump(t *testing.T) *rankDump {
	if *rankDumpFile == "" {
		return &rankDump{}
	}
	f, err := os.Create(*rankDumpFile)
	if err != nil {
		t.Fatal(err)
	}
	return &rankDump{t: t, w: bufio.NewWriter(f), f: f}
}

func (d *rankDump) add(query string, hits []segment.NoteHit) {
	if d.w == nil {
		return
	}
	fmt.Fprintf(d.w, "%q\n", query)
	for _, h := range hits {
		fmt.Fprintf(d.w, "%d %v %v %d %d:%v", h.ID, h.Score, h.Max, h.Matched, h.Best.Ord, h.Best.Score)
		for _, m := range h.More {
			fmt.Fprintf(d.w, " %d:%v", m.Ord, m.Score)
		}
		d.w.WriteString("\n")
	}
}

func (d *rankDump) close() {
	if d.w == nil {
		return
	}
	if err := d.w.Flush(); err != nil {
		d.t.Error(err)
	}
	if err := d.f.Close(); err != nil {
		d.t.Error(err)
	}
}
