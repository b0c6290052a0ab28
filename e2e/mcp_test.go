package e2e

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// docxFile is a minimal Word document: a title and paragraphs.
func docxFile(t *testing.T, title string, paragraphs ...string) []byte {
	t.Helper()
	const ns = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	var body strings.Builder
	fmt.Fprintf(&body, `<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr><w:r><w:t>%s</w:t></w:r></w:p>`, title)
	for _, p := range paragraphs {
		fmt.Fprintf(&body, `<w:p><w:r><w:t>%s</w:t></w:r></w:p>`, p)
	}
	parts := []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document ` + ns + `><w:body>` + body.String() + `</w:body></w:document>`},
	}
	var b bytes.Buffer
	z := zip.NewWriter(&b)
	for _, p := range parts {
		w, err := z.Create(p.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(p.body))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// An assistant reading what it cited through `ragctl mcp`: search, then
// get_document on the cited lines of a PDF, a DOCX and an HTML page returns their
// extracted text — the lines the citation names, with the PDF's pages —
// never the raw file or a refusal.
func TestMCPReadsCitedExtractedText(t *testing.T) {
	e := newEnv(t, notes, "")
	pdf, err := os.ReadFile(filepath.Join("..", "plugins", "extract", "pdf", "testdata", "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	e.Write("report.pdf", string(pdf))
	e.Write("memo.docx", string(docxFile(t, "Grinder Memo",
		"The burr grinder needs recalibration every spring.",
		"Order spare burrs from the roaster in Porto.")))
	e.Write("trip.html", "<html><head><title>Lisbon Trip</title></head><body><h1>Lisbon Trip</h1>"+
		"<p>Tram 28 climbs to the Alfama at dawn.</p><p>Pastéis in Belém.</p></body></html>")
	d := e.start("")
	e.waitFor(d, "idle", idle)

	cmd := exec.Command(filepath.Join(bin, "ragctl"), "mcp")
	cmd.Env = e.environ()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("ragctl mcp: %v\n%s", err, stderr.String())
	}
	defer cs.Close()
	call := func(name string, args map[string]any, out any) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		if res.IsError {
			t.Fatalf("%s %v: tool error %+v", name, args, res.Content)
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, b)
		}
	}
	type hit struct {
		Citation, Path, Text string
		LineStart            int `json:"line_start"`
		LineEnd              int `json:"line_end"`
	}
	type doc struct {
		Citation, Kind, Text string
		Extracted            bool
		Pages                []int
	}
	for _, tc := range []struct{ file, query, kind string }{
		{"report.pdf", "paraphrases", "pdf"},
		{"memo.docx", "burrs roaster Porto", "docx"},
		{"trip.html", "tram alfama dawn", "html"},
	} {
		var found struct{ Results []hit }
		call("search", map[string]any{"query": tc.query, "path_prefix": tc.file}, &found)
		if len(found.Results) == 0 {
			t.Errorf("search %q in %s found nothing", tc.query, tc.file)
			continue
		}
		h := found.Results[0]
		var got doc
		call("get_document", map[string]any{"path": h.Path, "line_start": h.LineStart, "line_end": h.LineEnd}, &got)
		if got.Kind != tc.kind || !got.Extracted || got.Citation != h.Citation ||
			strings.TrimSpace(got.Text) != strings.TrimSpace(h.Text) || strings.Contains(got.Text, "%PDF") {
			t.Errorf("get_document %s: %+v\nthe search cited %s: %q", h.Citation, got, h.Citation, h.Text)
		}
		if tc.kind == "pdf" && len(got.Pages) == 0 {
			t.Errorf("get_document %s: no page map", h.Citation)
		}
		// The CLI reads the same lines.
		code, out, errOut := e.ragctl("get", h.Citation)
		if code != 0 || strings.TrimSpace(out) != strings.TrimSpace(h.Text) {
			t.Errorf("ragctl get %s: exit %d %q %s", h.Citation, code, out, errOut)
		}
	}
}
