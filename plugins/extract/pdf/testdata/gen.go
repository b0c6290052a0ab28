//go:build ignore

// gen writes the PDF fixtures of the pdf extractor's tests:
//
//	report.pdf     fpdf, core fonts (WinAnsi), 3 pages, Info Title/Author,
//	               running header and footer, headings, a list, accented
//	               words and one word hyphenated across a line end
//	encrypted.pdf  fpdf, RC4 encrypted with a user password
//	office.pdf     LibreOffice (soffice --convert-to pdf) from an HTML page:
//	               embedded TrueType subsets with ToUnicode maps, as office
//	               suites write them, with font changes inside lines, Greek
//	               and Cyrillic text and a table; skipped when soffice is
//	               not installed
//	cairo.pdf      office.pdf redrawn by poppler's pdftocairo -pdf: cairo's
//	               font subsets, composite (Type0, Identity-H) fonts for
//	               the Greek and Cyrillic text, no document information
//	protected.pdf  report.pdf, AES-128 encrypted by qpdf with an owner
//	               password only: opens without a password
//	aes256.pdf     the same with AES-256 (revision 6)
//	objstm.pdf     report.pdf with object streams and a cross-reference
//	               stream (PDF 1.5), by qpdf
//	*.pdftotext    pdftotext's text of report, office and cairo, the
//	               reference of the quality test when poppler is absent
//
// It needs poppler-utils (pdftotext, pdftocairo), qpdf and, for
// office.pdf, LibreOffice Writer. Run it from this directory (it is its
// own module, so fpdf stays out of ragd's go.mod):
//
//	cd plugins/extract/pdf/testdata && go run gen.go
package main

import (
	"fmt"
	"html"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-pdf/fpdf"
)

// sections is the text of the fixtures: a heading and its paragraphs.
var sections = []struct {
	heading string
	paras   []string
}{
	{"Why a local index", []string{
		"A personal knowledge base grows one note at a time, and after a few years nobody remembers where a fact was written down. Full-text search finds exact words, but it misses paraphrases, and it cannot tell a passing mention from the place where a topic is explained.",
		"The daemon watches each vault, splits every note into sections and small overlapping chunks, and keeps both a lexical index and optional vectors. Queries return chunks with citations: the file, the heading path and the exact line range, so an answer can always be checked against its source.",
		"Nothing leaves the machine unless a remote embedder is configured on purpose. The index lives next to the configuration, survives restarts, and is rebuilt incrementally when files change, are renamed or disappear.",
	}},
	{"Extraction of documents", []string{
		"Plain text and Markdown are read directly. Office documents, web pages and portable documents go through extractors that run as separate processes, so that a malformed file can crash or hang only its own worker and never the daemon that serves queries.",
		"Portable documents are the hardest format: a page is a list of drawing operations, text is placed glyph by glyph, and words, lines and columns must be reconstructed from coordinates. Ligatures, kerning and hyphenation make the same word look different on every page.",
		"Café owners in Zürich, naïve façades and a résumé with an exposé are here to check that accented letters survive every step of the pipeline without turning into question marks.",
	}},
	{"Evaluation", []string{
		"Quality is measured by comparing the words an extractor produces with a reference extraction of the same file. Missing words hurt recall; invented words, duplicated headers and broken hyphenation hurt precision. Both are reported, page by page, for every fixture.",
		"Speed matters less than robustness, but a vault with thousands of reports must still be indexed in minutes rather than hours. Each extractor is benchmarked on a realistic document and the throughput is written down next to the overlap figure.",
		"Encrypted files without the password, truncated downloads and files that only pretend to be documents must produce a clear error message. They must never panic, never block a worker forever and never produce garbage text that pollutes the index.",
	}},
	{"Operations", []string{
		"Administrators install the optional poppler utilities when they are available, because their layout analysis is mature. When they are missing, a pure Go reader takes over, so that the daemon still works on a minimal system without any external tools.",
		"Logs name the file and the reason for every failure. Status output lists files that could not be extracted, and the next change to such a file triggers another attempt, which is usually enough after a partial download completes.",
	}},
}

// hyphenated is drawn line by line, breaking "retrieval" across two lines.
var hyphenated = []string{
	"Good chunking is the foundation of reliable retrie-",
	"val: a chunk that starts in the middle of a thought",
	"cannot be understood without its neighbours.",
}

func main() {
	log.SetFlags(0)
	if err := report("report.pdf", ""); err != nil {
		log.Fatal(err)
	}
	if err := report("encrypted.pdf", "secret"); err != nil {
		log.Fatal(err)
	}
	if err := office("office.pdf"); err != nil {
		log.Fatal(err)
	}
	if err := exec.Command("pdftocairo", "-pdf", "office.pdf", "cairo.pdf").Run(); err != nil {
		log.Fatalf("pdftocairo: %v", err)
	}
	for _, args := range [][]string{
		{"--encrypt", "", "owner", "128", "--use-aes=y", "--", "report.pdf", "protected.pdf"},
		{"--encrypt", "", "owner", "256", "--", "report.pdf", "aes256.pdf"},
		{"--object-streams=generate", "report.pdf", "objstm.pdf"},
	} {
		if out, err := exec.Command("qpdf", args...).CombinedOutput(); err != nil {
			log.Fatalf("qpdf %v: %v\n%s", args, err, out)
		}
	}
	for _, name := range []string{"report.pdf", "office.pdf", "cairo.pdf"} {
		out, err := exec.Command("pdftotext", "-enc", "UTF-8", "-eol", "unix", name, "-").Output()
		if err != nil {
			log.Fatalf("pdftotext %s: %v", name, err)
		}
		if err := os.WriteFile(strings.TrimSuffix(name, ".pdf")+".pdftotext", out, 0o644); err != nil {
			log.Fatal(err)
		}
	}
}

func report(name, password string) error {
	pdf := fpdf.New("P", "mm", "A4", "")
	date := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	pdf.SetCreationDate(date)
	pdf.SetModificationDate(date)
	pdf.SetCatalogSort(true)
	pdf.SetTitle("Retrieval Fixture Report", true)
	pdf.SetAuthor("Ada Lovelace", true)
	pdf.SetSubject("Test document for the PDF extractor", true)
	pdf.SetCreator("ragd testdata/gen.go", true)
	if password != "" {
		pdf.SetProtection(fpdf.CnProtectPrint, password, "owner-"+password)
	}
	tr := pdf.UnicodeTranslatorFromDescriptor("") // UTF-8 to cp1252
	pdf.AliasNbPages("")
	pdf.SetHeaderFunc(func() {
		pdf.SetFont("Helvetica", "I", 9)
		pdf.CellFormat(0, 8, "ragd fixture report", "B", 1, "R", false, 0, "")
		pdf.Ln(4)
	})
	pdf.SetFooterFunc(func() {
		pdf.SetY(-15)
		pdf.SetFont("Helvetica", "I", 9)
		pdf.CellFormat(0, 10, fmt.Sprintf("Page %d of {nb}", pdf.PageNo()), "", 0, "C", false, 0, "")
	})
	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 20)
	pdf.MultiCell(0, 10, "Retrieval Fixture Report", "", "L", false)
	pdf.Ln(4)
	for i, s := range sections {
		if i == 2 {
			pdf.AddPage() // a forced break, so pages hold known sections
		}
		pdf.SetFont("Helvetica", "B", 14)
		pdf.MultiCell(0, 8, fmt.Sprintf("%d. %s", i+1, s.heading), "", "L", false)
		pdf.Ln(2)
		pdf.SetFont("Helvetica", "", 11)
		for _, p := range s.paras {
			pdf.MultiCell(0, 5.5, tr(p), "", "J", false)
			pdf.Ln(3)
		}
		if i == 1 {
			for _, l := range hyphenated {
				pdf.CellFormat(0, 5.5, l, "", 1, "L", false, 0, "")
			}
			pdf.Ln(3)
			for _, item := range []string{"watch the vaults", "extract and chunk", "answer with citations"} {
				pdf.CellFormat(6, 5.5, tr("•"), "", 0, "R", false, 0, "")
				pdf.CellFormat(0, 5.5, " "+item, "", 1, "L", false, 0, "")
			}
			pdf.Ln(3)
		}
	}
	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 14)
	pdf.MultiCell(0, 8, "Appendix", "", "L", false)
	pdf.SetFont("Helvetica", "", 11)
	pdf.MultiCell(0, 5.5, "The last page holds only this short appendix, so that page boundaries are easy to check.", "", "L", false)
	return pdf.OutputFileAndClose(name)
}

// office writes office.html and converts it with LibreOffice.
func office(name string) error {
	soffice, err := exec.LookPath("soffice")
	if err != nil {
		log.Printf("soffice not found: %s not regenerated", name)
		return nil
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Office Fixture</title>\n" +
		"<meta name=\"author\" content=\"Grace Hopper\"></head><body>\n<h1>Office Fixture</h1>\n")
	for round := range 2 {
		for i, s := range sections {
			fmt.Fprintf(&b, "<h2>%s</h2>\n", html.EscapeString(s.heading))
			for _, p := range s.paras {
				fmt.Fprintf(&b, "<p>%s</p>\n", html.EscapeString(p))
			}
			if round == 0 && i == 1 {
				b.WriteString("<ul><li>watch the vaults</li><li>extract and chunk</li><li>answer with citations</li></ul>\n")
				b.WriteString("<p>Runs switch fonts mid-line: <b>bold words</b>, <i>italic words</i>, <code>monospace code</code>, " +
					"E = mc<sup>2</sup> and H<sub>2</sub>O, then plain text again.</p>\n")
				b.WriteString("<p>Ελληνικά: η γρήγορη καφέ αλεπού. Русский: съешь же ещё этих мягких французских булок.</p>\n")
				b.WriteString("<table border=\"1\"><tr><th>Format</th><th>Backend</th><th>Notes</th></tr>" +
					"<tr><td>PDF</td><td>pdftotext</td><td>reading order</td></tr>" +
					"<tr><td>DOCX</td><td>encoding/xml</td><td>streamed</td></tr></table>\n")
			}
		}
		if round == 0 {
			b.WriteString(`<p style="page-break-before: always">Second round of the same sections follows.</p>` + "\n")
		}
	}
	b.WriteString("</body></html>\n")
	dir, err := os.MkdirTemp("", "gen")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, strings.TrimSuffix(name, ".pdf")+".html")
	if err := os.WriteFile(src, []byte(b.String()), 0o644); err != nil {
		return err
	}
	cmd := exec.Command(soffice, "--headless", "-env:UserInstallation=file://"+dir+"/profile",
		"--convert-to", "pdf:writer_web_pdf_Export", "--outdir", dir, src)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("soffice: %w", err)
	}
	out, err := os.ReadFile(strings.TrimSuffix(src, ".html") + ".pdf")
	if err != nil {
		return err
	}
	return os.WriteFile(name, out, 0o644)
}
