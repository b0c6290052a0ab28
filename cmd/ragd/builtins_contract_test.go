package main

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/builtin"
	"github.com/ragd/ragd/plugins/contract"
	"github.com/ragd/ragd/plugins/host"
)

// startBuiltins runs built-in backends the way the daemon does: this test
// binary (which is ragd, see TestMain) started as `plugin NAME`, through
// the host.
func startBuiltins(t testing.TB, specs ...host.Spec) *host.Manager {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for i := range specs {
		specs[i].Builtin, specs[i].Command = true, exe
		specs[i].Args = []string{"plugin", specs[i].Name}
		specs[i].Env = map[string]string{"RAGD_TEST_MAIN": "1"}
		specs[i].Timeout = time.Minute
	}
	m, err := host.New(specs, host.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, st := range m.Status() {
		if st.State != "running" {
			t.Fatalf("%s: %s: %s", st.Name, st.State, st.LastError)
		}
	}
	return m
}

// The built-in extractors and the heuristic reranker pass their kind's
// contract suite as real subprocesses.
func TestBuiltinContracts(t *testing.T) {
	m := startBuiltins(t,
		host.Spec{Name: "pdf", Kind: plugins.KindExtractor},
		host.Spec{Name: "docx", Kind: plugins.KindExtractor},
		host.Spec{Name: "html", Kind: plugins.KindExtractor},
		host.Spec{Name: "heuristic", Kind: plugins.KindReranker})
	pdf, err := os.ReadFile(filepath.Join(repoRoot(t), "plugins", "extract", "pdf", "testdata", "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("pdf", func(t *testing.T) {
		x, _ := m.Extractor("pdf")
		contract.TestExtractor(t, x, contract.Sample{Path: "papers/report.pdf", Data: pdf,
			WantContains: []string{"Retrieval Fixture Report", "A personal knowledge base grows one note at a time"}})
	})
	t.Run("docx", func(t *testing.T) {
		x, _ := m.Extractor("docx")
		contract.TestExtractor(t, x, contract.Sample{Path: "letters/kettle.docx", Data: minimalDocx(t),
			WantContains: []string{"# Kettle care", "Descale the kettle with citric acid."}})
	})
	t.Run("html", func(t *testing.T) {
		x, _ := m.Extractor("html")
		page := `<html><head><title>Kettle</title><script>var x</script></head><body><h1>Kettle care</h1><p>Descale with <b>citric</b> acid.</p></body></html>`
		contract.TestExtractor(t, x, contract.Sample{Path: "web/kettle.html", Data: []byte(page), WantTitle: "Kettle",
			WantContains: []string{"# Kettle care", "Descale with citric acid."}})
	})
	t.Run("heuristic", func(t *testing.T) {
		r, _ := m.Reranker("heuristic")
		contract.TestReranker(t, r)
	})
}

// The offline embedder passes the embedder contract as a subprocess.
func TestBuiltinUseliteContract(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "models", "use-lite")
	if _, err := os.Stat(filepath.Join(dir, "model.json")); err != nil {
		if os.Getenv("RAGD_REQUIRE_MODELS") == "1" {
			t.Fatalf("model not found in %s: run make models", dir)
		}
		t.Skip("model not found: run make models")
	}
	m := startBuiltins(t, host.Spec{Name: "uselite", Kind: plugins.KindEmbedder,
		Options: plugins.Options{"model_dir": dir, "threads": runtime.GOMAXPROCS(0)}})
	e, _ := m.Embedder("uselite")
	contract.TestEmbedder(t, e)
}

func repoRoot(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", ".."))
}

// minimalDocx builds a real WordprocessingML file: a heading and a paragraph.
func minimalDocx(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	files := map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
		"_rels/.rels":         `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
		"word/document.xml": `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` +
			`<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Kettle care</w:t></w:r></w:p>` +
			`<w:p><w:r><w:t>Descale the kettle with citric acid.</w:t></w:r></w:p></w:body></w:document>`,
	}
	for name, content := range files {
		w, err := z.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The heuristic reranker called in ragd's process, as the daemon runs it,
// passes the reranker contract and scores exactly as it does in a process
// of its own (the plugin protocol carries modification times in whole
// seconds, the epoch meaning none).
func TestHeuristicInProcess(t *testing.T) {
	sub := startBuiltins(t, host.Spec{Name: "heuristic", Kind: plugins.KindReranker})
	in := startInProcessHeuristic(t)
	if st := in.Status()[0]; st.State != ipc.PluginRunning || !st.InProcess || st.PID != 0 {
		t.Fatalf("in-process heuristic: %+v", st)
	}
	inR, _ := in.Reranker("heuristic")
	subR, _ := sub.Reranker("heuristic")
	t.Run("contract", func(t *testing.T) { contract.TestReranker(t, inR) })

	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.Local)
	cands := []plugins.Candidate{
		{ID: "1", Vault: "v", Path: "garden/soil.md", Title: "Soil", Heading: "Soil > Compost heaps", Score: 7.5, Modified: base.Add(300 * time.Millisecond)},
		{ID: "2", Vault: "v", Path: "garden/soil.md", Heading: "Soil > Watering", Score: 7.5, Modified: base.Add(700 * time.Millisecond)},
		{ID: "3", Vault: "v", Path: "kitchen/compost bin.md", Score: 3.25, Modified: base.Add(-36 * time.Hour)},
		{ID: "4", Vault: "w", Path: "garden/soil.md", Title: "Composting soil", Score: 3.25},
		{ID: "5", Vault: "v", Path: "old.md", Heading: "Heaps", Score: 1, Modified: time.Unix(0, 0)},
		{ID: "6", Vault: "v", Path: "Ünïcode/Kompost-Haufen.md", Title: "Kompost", Score: 0.5, Modified: base.Add(time.Hour).UTC()},
	}
	for _, q := range []string{"compost heaps", "soil watering schedule", "the", "Kompost"} {
		want, err := subR.Rerank(context.Background(), q, cands)
		if err != nil {
			t.Fatal(err)
		}
		got, err := inR.Rerank(context.Background(), q, cands)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: in-process scores %v, in a process of its own %v", q, got, want)
		}
	}
}

// startInProcessHeuristic serves the heuristic reranker in this process,
// as the daemon does by default.
func startInProcessHeuristic(t testing.TB) *host.Manager {
	t.Helper()
	m, err := host.New([]host.Spec{{Name: "heuristic", Kind: plugins.KindReranker, Builtin: true,
		InProcess: builtin.InProcess("heuristic")}}, host.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	return m
}
