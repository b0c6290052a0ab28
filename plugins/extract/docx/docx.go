// Package docx is ragd's built-in extractor for Word documents
// (WordprocessingML, .docx): it turns the main document part into Markdown.
//
// The file is read with archive/zip and every part is decoded with
// encoding/xml; word/document.xml is streamed token by token, never held as
// a tree. Paragraphs become Markdown paragraphs; paragraphs whose style is
// Title or "heading 1".."heading 6" (by style name, so localized style ids
// work, following basedOn, or with an outline level) become ATX headings;
// numbered and bulleted paragraphs (w:numPr, directly or through their
// style, resolved in word/numbering.xml) become "- " / "1. " list items
// indented by level; tables become pipe tables (the first row is the
// header, a one-column table becomes paragraphs); w:br and w:cr become line
// breaks and w:tab a tab. Text boxes are kept (the mc:Choice branch, never
// the duplicate mc:Fallback), deleted revisions and field instructions are
// not. Headers, footers, footnotes and comments are not extracted.
//
// The title is dc:title of docProps/core.xml, else the first Title or
// heading paragraph. Metadata holds author, last_modified_by, created,
// modified, subject, keywords and description when present.
//
// Limits: the file may be at most max_bytes (default 64 MiB) and no part
// may inflate to more than 8×max_bytes, so a zip bomb fails fast; the
// context is checked while streaming.
package docx

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"golang.org/x/net/html/charset"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/extract/internal/md"
	"github.com/ragd/ragd/plugins/extract/internal/opt"
)

// Version of the extractor; bumped when the same file converts differently.
const Version = "1.0.0"

// DefaultMaxBytes is the largest file extracted unless max_bytes says
// otherwise.
const DefaultMaxBytes = 64 << 20

// Extractor converts .docx files to Markdown. Use New; it is safe for
// concurrent use once configured.
type Extractor struct {
	maxBytes int64
}

var (
	_ plugins.Extractor    = (*Extractor)(nil)
	_ plugins.Configurable = (*Extractor)(nil)
)

// New returns a DOCX extractor with default options.
func New() *Extractor { return &Extractor{maxBytes: DefaultMaxBytes} }

// Configure takes the option max_bytes (largest input file, default 64 MiB).
func (e *Extractor) Configure(_ context.Context, o plugins.Options) error {
	n, err := opt.MaxBytes(o, DefaultMaxBytes)
	if err != nil {
		return fmt.Errorf("docx: %w", err)
	}
	e.maxBytes = n
	return nil
}

// ExtractorInfo implements plugins.Extractor.
func (e *Extractor) ExtractorInfo(context.Context) (plugins.ExtractorInfo, error) {
	return plugins.ExtractorInfo{
		Name:       "docx",
		Version:    Version,
		Extensions: []string{".docx", ".docm"},
		MediaTypes: []string{
			"application/vnd.openxmlformats-officedocument.wordprocessingml.document",
			"application/vnd.ms-word.document.macroEnabled.12",
		},
	}, nil
}

// errTooLarge is returned when a part inflates past the limit.
var errTooLarge = errors.New("part inflates past the size limit")

// Extract implements plugins.Extractor.
func (e *Extractor) Extract(ctx context.Context, req plugins.ExtractRequest) (plugins.Extraction, error) {
	x, err := e.extract(ctx, req.Data)
	if err != nil {
		return plugins.Extraction{}, fmt.Errorf("docx: %s: %w", req.Path, err)
	}
	return x, nil
}

func (e *Extractor) extract(ctx context.Context, data []byte) (plugins.Extraction, error) {
	if err := opt.CheckInput(ctx, data, e.maxBytes); err != nil {
		return plugins.Extraction{}, err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return plugins.Extraction{}, fmt.Errorf("not a Word document (zip): %w", err)
	}
	p := pkg{zr: zr, limit: 8 * e.maxBytes}
	main := p.mainPart()
	if p.file(main) == nil {
		return plugins.Extraction{}, fmt.Errorf("not a Word document: no %s", main)
	}
	meta, title, err := p.core()
	if err != nil {
		return plugins.Extraction{}, err
	}
	st, err := p.styles(path.Dir(main))
	if err != nil {
		return plugins.Extraction{}, err
	}
	b := body{ctx: ctx, st: st}
	if err := p.decode(main, b.run); err != nil {
		return plugins.Extraction{}, err
	}
	if title == "" {
		title = b.title
	}
	return plugins.Extraction{
		Text:     md.Clean(b.w.String()),
		Format:   plugins.FormatMarkdown,
		Title:    md.Clean(title),
		Metadata: meta,
	}, nil
}

// pkg is the OPC package (the zip) of a document.
type pkg struct {
	zr    *zip.Reader
	limit int64
}

func (p *pkg) file(name string) *zip.File {
	for _, f := range p.zr.File {
		if strings.EqualFold(strings.TrimPrefix(f.Name, "/"), name) {
			return f
		}
	}
	return nil
}

// decode streams part name to fn as XML tokens. A missing part is not an
// error (fn is not called).
func (p *pkg) decode(name string, fn func(*xml.Decoder) error) error {
	f := p.file(name)
	if f == nil {
		return nil
	}
	rc, err := f.Open()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	lr := &limitReader{r: rc, n: p.limit}
	d := xml.NewDecoder(lr)
	d.CharsetReader = charset.NewReaderLabel
	if err := fn(d); err != nil {
		if lr.n < 0 {
			err = errTooLarge
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// limitReader fails once more than n bytes were read.
type limitReader struct {
	r io.Reader
	n int64
}

func (l *limitReader) Read(b []byte) (int, error) {
	if l.n < 0 {
		return 0, errTooLarge
	}
	n, err := l.r.Read(b)
	if l.n -= int64(n); l.n < 0 {
		return 0, errTooLarge
	}
	return n, err
}

// mainPart returns the main document part named by _rels/.rels.
func (p *pkg) mainPart() string {
	main := "word/document.xml"
	_ = p.decode("_rels/.rels", func(d *xml.Decoder) error {
		var rels struct {
			Rel []struct {
				Type   string `xml:"Type,attr"`
				Target string `xml:"Target,attr"`
			} `xml:"Relationship"`
		}
		if d.Decode(&rels) != nil {
			return nil
		}
		for _, r := range rels.Rel {
			if strings.HasSuffix(r.Type, "/officeDocument") && r.Target != "" {
				main = strings.TrimPrefix(path.Clean("/"+r.Target), "/")
				break
			}
		}
		return nil
	})
	return main
}

// core reads docProps/core.xml.
func (p *pkg) core() (map[string]string, string, error) {
	var c struct {
		Title       string `xml:"title"`
		Creator     string `xml:"creator"`
		LastBy      string `xml:"lastModifiedBy"`
		Created     string `xml:"created"`
		Modified    string `xml:"modified"`
		Subject     string `xml:"subject"`
		Keywords    string `xml:"keywords"`
		Description string `xml:"description"`
	}
	err := p.decode("docProps/core.xml", func(d *xml.Decoder) error {
		if err := d.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
			if errors.Is(err, errTooLarge) {
				return err
			}
			c.Title = "" // unreadable properties: ignore them
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	meta := map[string]string{}
	for k, v := range map[string]string{
		"author": c.Creator, "last_modified_by": c.LastBy, "created": c.Created,
		"modified": c.Modified, "subject": c.Subject, "keywords": c.Keywords,
		"description": c.Description,
	} {
		if v = md.Clean(md.Collapse(v)); v != "" {
			meta[k] = v
		}
	}
	return meta, md.Collapse(c.Title), nil
}
