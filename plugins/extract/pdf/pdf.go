// Package pdf is ragd's built-in PDF extractor: plain text with the line
// where every page starts.
//
// # Two backends
//
// When poppler's pdftotext is on PATH (Debian/Ubuntu package
// poppler-utils, Homebrew poppler) it does the work: it is the reference
// for text extraction quality (reading-order analysis, columns, CID fonts,
// Type 3 fonts, ligatures, dehyphenation, broken cross-reference tables
// reconstructed) and runs in its own process under the request's deadline.
// It runs in its default reading-order mode: -layout pads columns with
// spaces and keeps side-by-side columns on one line, and -raw keeps
// drawing order, both worse for search and citations. pdfinfo, from the
// same package, supplies the document information.
//
// Without poppler a pure-Go backend takes over, so ragd still indexes
// PDFs on a minimal system. github.com/ledongthuc/pdf parses the file
// (cross-reference tables and streams, object streams, filters, standard
// RC4/AES encryption with an empty user password, ToUnicode maps and
// simple encodings); this package interprets the page content itself
// (interp.go): text state, word spacing, composite-font widths and form
// XObjects, one positioned glyph per character code. Lines are then
// rebuilt from positions (layout.go): glyphs on one baseline form a line,
// a gap wider than a fifth of the font size is a space, and a vertical gap
// clearly larger than the page's usual line spacing (or a change of font
// size) starts a new paragraph. On the fixtures (fpdf core fonts,
// LibreOffice TrueType subsets, cairo composite fonts) its word overlap
// with pdftotext is ≥ 0.997 (quality_test.go). It is weaker on real-world
// files: it keeps drawing order instead of analysing reading order (so
// multi-column pages may interleave), mis-decodes simple fonts that name
// glyphs in a custom Differences encoding instead of a ToUnicode map, and
// refuses files whose %%EOF or startxref it cannot find where poppler
// would rebuild the table. The parser panics on malformed input; every
// call into it is recovered and turned into an error.
//
// The backend option picks one: "auto" (default: pdftotext when found),
// "pdftotext" (fail if missing) or "go".
//
// # Output
//
// Text is FormatText, chunked by paragraphs: a PDF carries no reliable
// heading structure, and Markdown would misread text that happens to start
// with '#', '-' or a number. Pages come in order, each page's paragraphs
// separated by blank lines, one blank line between pages. Extraction.Pages gives the
// 1-based line where each page starts (an empty page starts where the next
// one does). Words hyphenated across a line end are joined ("retrie-" /
// "val" becomes "retrieval" on the first line), and lines that repeat at
// the top or bottom of most pages (running headers, "Page 3 of 9") are
// dropped unless strip_headers is false. Title is the Info dictionary's
// Title, else the first line of text; Metadata holds author, subject,
// keywords, creator, producer, created, pages and extractor ("pdftotext"
// or "go").
//
// # Errors and limits
//
// Encrypted files that need a password (or, in the Go backend, use
// AES-256, which it cannot decrypt) fail with ErrEncrypted, files that
// cannot be parsed with ErrCorrupt (both wrapped with the path and a
// reason). Inputs larger than max_bytes (default 256 MiB) are refused and
// every extraction runs under the request's context, bounded further by
// timeout (default 2m): pdftotext is killed, and the Go backend checks the
// context between pages and is abandoned when it expires (a pathological
// file may keep one goroutine busy until its page is done, which is why
// extractors run as plugin subprocesses).
package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/extract/internal/opt"
	"github.com/ragd/ragd/plugins/internal/options"
)

// Version of the extractor; bumped when the same file converts differently.
const Version = "1.0.0"

// Defaults of the options.
const (
	DefaultMaxBytes = 256 << 20
	DefaultTimeout  = 2 * time.Minute
)

// Errors for files that cannot be extracted (wrapped with details).
var (
	ErrEncrypted = errors.New("PDF is encrypted")
	ErrCorrupt   = errors.New("PDF is corrupt or unsupported")
	ErrNoBackend = errors.New("pdftotext not found (install poppler-utils)")
)

// Extractor extracts the text of PDF files. Use New; it is safe for
// concurrent use once configured.
type Extractor struct {
	backend      string // "auto", "pdftotext" or "go"
	pdftotext    string // path, "" if not found
	pdfinfo      string // path, "" if not found
	maxBytes     int64
	timeout      time.Duration
	stripHeaders bool
}

var (
	_ plugins.Extractor    = (*Extractor)(nil)
	_ plugins.Configurable = (*Extractor)(nil)
)

// New returns a PDF extractor with default options; it looks for
// pdftotext and pdfinfo on PATH.
func New() *Extractor {
	e := &Extractor{backend: "auto", maxBytes: DefaultMaxBytes, timeout: DefaultTimeout, stripHeaders: true}
	e.pdftotext, _ = exec.LookPath("pdftotext")
	e.pdfinfo, _ = exec.LookPath("pdfinfo")
	return e
}

// Configure takes the options backend ("auto", "pdftotext", "go"),
// pdftotext (path of the binary; pdfinfo is looked for beside it),
// max_bytes, timeout ("90s" or seconds) and strip_headers (bool).
func (e *Extractor) Configure(_ context.Context, o plugins.Options) error {
	if err := e.configure(o); err != nil {
		return fmt.Errorf("pdf: %w", err)
	}
	return nil
}

// config is the options table of the extractor.
type config struct {
	Backend      string           `json:"backend"`
	Pdftotext    string           `json:"pdftotext"`
	MaxBytes     int64            `json:"max_bytes"`
	Timeout      options.Duration `json:"timeout"`
	StripHeaders bool             `json:"strip_headers"`
}

func (e *Extractor) configure(o plugins.Options) error {
	c := config{Backend: "auto", MaxBytes: DefaultMaxBytes, Timeout: options.Duration(DefaultTimeout), StripHeaders: true}
	if err := options.Decode(o, &c); err != nil {
		return err
	}
	switch c.Backend {
	case "auto", "pdftotext", "go":
	default:
		return fmt.Errorf("option \"backend\": %q is not auto, pdftotext or go", c.Backend)
	}
	if err := opt.CheckMaxBytes(c.MaxBytes); err != nil {
		return err
	}
	if c.Timeout <= 0 {
		return fmt.Errorf("option \"timeout\": must be positive")
	}
	e.backend, e.maxBytes, e.timeout, e.stripHeaders = c.Backend, c.MaxBytes, time.Duration(c.Timeout), c.StripHeaders
	if c.Pdftotext != "" {
		p, err := exec.LookPath(c.Pdftotext)
		if err != nil {
			return fmt.Errorf("option \"pdftotext\": %w", err)
		}
		e.pdftotext = p
		e.pdfinfo, _ = exec.LookPath(filepath.Join(filepath.Dir(p), "pdfinfo"))
	}
	if e.backend == "pdftotext" && e.pdftotext == "" {
		return ErrNoBackend
	}
	return nil
}

// Backend returns the backend Extract uses: "pdftotext" or "go".
func (e *Extractor) Backend() string {
	if e.backend != "go" && e.pdftotext != "" {
		return "pdftotext"
	}
	return "go"
}

// ExtractorInfo implements plugins.Extractor.
func (e *Extractor) ExtractorInfo(context.Context) (plugins.ExtractorInfo, error) {
	return plugins.ExtractorInfo{
		Name:       "pdf",
		Version:    Version,
		Extensions: []string{".pdf"},
		MediaTypes: []string{"application/pdf"},
	}, nil
}

// Extract implements plugins.Extractor.
func (e *Extractor) Extract(ctx context.Context, req plugins.ExtractRequest) (plugins.Extraction, error) {
	x, err := e.extract(ctx, req.Data)
	if err != nil {
		return plugins.Extraction{}, fmt.Errorf("pdf: %s: %w", req.Path, err)
	}
	return x, nil
}

func (e *Extractor) extract(ctx context.Context, data []byte) (plugins.Extraction, error) {
	if err := opt.CheckInput(ctx, data, e.maxBytes); err != nil {
		return plugins.Extraction{}, err
	}
	if i := bytes.Index(data, []byte("%PDF-")); i < 0 || i > 1024 {
		return plugins.Extraction{}, fmt.Errorf("%w: no %%PDF- header", ErrCorrupt)
	}
	ctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	var (
		doc *document
		err error
	)
	if e.Backend() == "pdftotext" {
		doc, err = e.poppler(ctx, data)
	} else {
		doc, err = goExtract(ctx, data)
	}
	if err != nil {
		if ctx.Err() != nil {
			return plugins.Extraction{}, fmt.Errorf("extraction stopped: %w", context.Cause(ctx))
		}
		return plugins.Extraction{}, err
	}
	return doc.extraction(e.stripHeaders), nil
}
