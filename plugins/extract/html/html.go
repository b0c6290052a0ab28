// Package html is ragd's built-in HTML extractor: it turns a web page or an
// exported note into Markdown for the index.
//
// The page is decoded to UTF-8 first (byte order mark, <meta charset> or
// http-equiv Content-Type in the first 1024 bytes, the charset parameter of
// the request's media type, else a guess; see
// golang.org/x/net/html/charset) and parsed with golang.org/x/net/html,
// which repairs malformed markup the way browsers do.
//
// Conversion keeps what a reader would read and drops the rest: <head>
// (except <title>), script, style, noscript, template, nav, forms, svg,
// iframes, elements marked hidden, aria-hidden or display:none, ARIA
// navigation/banner/contentinfo landmarks, and page-level header and footer
// (those not inside article, main or section). When the page has a <main>
// element (or role="main"), only it is converted. h1–h6 become ATX
// headings, paragraphs and other blocks are separated by blank lines, ul/ol
// become "- " / "1. " lists (nested by indentation), blockquote becomes
// "> ", pre becomes a fenced code block (with the language of a
// "language-x" class), tables become pipe tables, br a line break, and
// links and inline markup their text. Text that would read as Markdown
// syntax at the start of a line is backslash-escaped.
//
// The title is the <title> text, else og:title, else the first <h1>.
// Metadata holds description, author, keywords, lang and charset when
// present.
package html

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/extract/internal/md"
	"github.com/ragd/ragd/plugins/extract/internal/opt"
)

// Version of the extractor; bumped when the same page converts differently.
const Version = "1.0.0"

// DefaultMaxBytes is the largest page extracted unless max_bytes says
// otherwise.
const DefaultMaxBytes = 32 << 20

// Extractor converts HTML to Markdown. Use New; it is safe for concurrent
// use once configured.
type Extractor struct {
	maxBytes int64
}

var (
	_ plugins.Extractor    = (*Extractor)(nil)
	_ plugins.Configurable = (*Extractor)(nil)
)

// New returns an HTML extractor with default options.
func New() *Extractor { return &Extractor{maxBytes: DefaultMaxBytes} }

// Configure takes the option max_bytes (largest input, default 32 MiB).
func (e *Extractor) Configure(_ context.Context, o plugins.Options) error {
	n, err := opt.MaxBytes(o, DefaultMaxBytes)
	if err != nil {
		return fmt.Errorf("html: %w", err)
	}
	e.maxBytes = n
	return nil
}

// ExtractorInfo implements plugins.Extractor.
func (e *Extractor) ExtractorInfo(context.Context) (plugins.ExtractorInfo, error) {
	return plugins.ExtractorInfo{
		Name:       "html",
		Version:    Version,
		Extensions: []string{".html", ".htm", ".xhtml"},
		MediaTypes: []string{"text/html", "application/xhtml+xml"},
	}, nil
}

// Extract implements plugins.Extractor.
func (e *Extractor) Extract(ctx context.Context, req plugins.ExtractRequest) (plugins.Extraction, error) {
	if err := opt.CheckInput(ctx, req.Data, e.maxBytes); err != nil {
		return plugins.Extraction{}, fmt.Errorf("html: %s: %w", req.Path, err)
	}
	src, cs, err := decode(req.Data, req.MediaType)
	if err != nil {
		return plugins.Extraction{}, fmt.Errorf("html: %s: %w", req.Path, err)
	}
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		return plugins.Extraction{}, fmt.Errorf("html: %s: %w", req.Path, err)
	}
	c := converter{ctx: ctx}
	c.convert(doc)
	if c.err != nil {
		return plugins.Extraction{}, c.err
	}
	meta := map[string]string{}
	for k, v := range c.meta {
		meta[k] = v
	}
	if cs != "" {
		meta["charset"] = cs
	}
	title := c.title
	if title == "" {
		title = c.meta["og:title"]
	}
	delete(meta, "og:title")
	if title == "" {
		title = c.h1
	}
	return plugins.Extraction{
		Text:     md.Clean(c.w.String()),
		Format:   plugins.FormatMarkdown,
		Title:    md.Clean(title),
		Metadata: meta,
	}, nil
}

// decode returns data as UTF-8 and the name of the charset it was in.
func decode(data []byte, mediaType string) ([]byte, string, error) {
	if mediaType == "" || !strings.Contains(mediaType, "html") {
		mediaType = "text/html"
	}
	enc, name, _ := charset.DetermineEncoding(data, mediaType)
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if name == "utf-8" || enc == nil {
		return data, name, nil
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return nil, name, fmt.Errorf("decoding %s: %w", name, err)
	}
	return bytes.TrimPrefix(out, []byte("\xef\xbb\xbf")), name, nil
}
