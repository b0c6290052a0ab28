package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"
)

// Bounds of the page tree walk (a malformed tree may be cyclic).
const (
	maxTreeDepth = 64
	maxPages     = 100_000
)

// goExtract extracts with the pure-Go parser on its own goroutine, so
// that an expired context returns at once even while a page is being
// parsed.
func goExtract(ctx context.Context, data []byte) (*document, error) {
	type result struct {
		doc *document
		err error
	}
	done := make(chan result, 1)
	go func() {
		doc, err := goParse(ctx, data)
		done <- result{doc, err}
	}()
	select {
	case r := <-done:
		return r.doc, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// goParse does the work of goExtract; the parser's panics become errors.
func goParse(ctx context.Context, data []byte) (doc *document, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%w: %v", ErrCorrupt, r)
		}
	}()
	if len(data) > 8 && bytes.HasPrefix(data, []byte("%PDF-2.")) {
		// The parser only knows 1.x headers; 2.0 files share the syntax.
		data = append([]byte("%PDF-1.7"), data[8:]...)
	}
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) {
			return nil, fmt.Errorf("%w: it needs a password", ErrEncrypted)
		}
		if strings.Contains(err.Error(), "encrypt") {
			return nil, fmt.Errorf("%w with a method the pure-Go reader does not support (%w); install poppler-utils", ErrEncrypted, err)
		}
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	doc = &document{info: map[string]string{}, backend: "go"}
	infoDict := r.Trailer().Key("Info")
	for _, k := range []string{"Title", "Author", "Subject", "Keywords", "Creator", "Producer", "CreationDate"} {
		if v := infoText(infoDict.Key(k).RawString()); v != "" {
			doc.info[k] = v
		}
	}
	var pages []pdf.Value
	collectPages(r.Trailer().Key("Root").Key("Pages"), 0, &pages)
	if len(pages) == 0 {
		return nil, fmt.Errorf("%w: no pages", ErrCorrupt)
	}
	failed := 0
	var firstErr error
	for _, p := range pages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		text, err := pageText(p)
		if err != nil {
			failed++
			firstErr = cmpOr(firstErr, err)
		}
		doc.pages = append(doc.pages, text)
	}
	if failed == len(pages) {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, firstErr)
	}
	return doc, nil
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// collectPages walks the page tree in order, bounded in depth and size.
func collectPages(node pdf.Value, depth int, out *[]pdf.Value) {
	if depth > maxTreeDepth || len(*out) >= maxPages || node.Kind() != pdf.Dict {
		return
	}
	kids := node.Key("Kids")
	typ := node.Key("Type").Name()
	if typ == "Page" || typ != "Pages" && kids.Kind() != pdf.Array {
		*out = append(*out, node)
		return
	}
	for i := 0; i < kids.Len() && len(*out) < maxPages; i++ {
		collectPages(kids.Index(i), depth+1, out)
	}
}

// pageText returns the text of one page; a panic while reading it is an
// error for this page only.
func pageText(v pdf.Value) (text string, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, err = "", fmt.Errorf("page: %v", r)
		}
	}()
	if !inheritable(v) {
		return "", errors.New("page: Parent chain too long or cyclic")
	}
	return layout(pageGlyphs(pdf.Page{V: v})), nil
}

// inheritable reports whether the parser's walk up the Parent chain (for
// inherited Resources) ends: it loops forever on a cycle.
func inheritable(v pdf.Value) bool {
	for range maxTreeDepth {
		if v.IsNull() || !v.Key("Resources").IsNull() {
			return true
		}
		v = v.Key("Parent")
	}
	return false
}

// infoText decodes a document information string: UTF-16BE or UTF-8 with
// a byte order mark, else PDFDocEncoding. It first drops AES padding,
// which the parser leaves on strings of AES-encrypted files.
func infoText(raw string) string {
	if n := len(raw); n > 0 {
		if p := int(raw[n-1]); p >= 1 && p <= 16 && p <= n && strings.Count(raw[n-p:], raw[n-1:]) == p {
			raw = raw[:n-p]
		}
	}
	if s, ok := strings.CutPrefix(raw, "\xfe\xff"); ok {
		u := make([]uint16, len(s)/2)
		for i := range u {
			u[i] = uint16(s[2*i])<<8 | uint16(s[2*i+1])
		}
		return string(utf16.Decode(u))
	}
	if s, ok := strings.CutPrefix(raw, "\xef\xbb\xbf"); ok {
		return s
	}
	r := make([]rune, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := rune(raw[i])
		if c >= 0x80 && c < 0xa0 {
			c = pdfDocHigh[c-0x80]
		}
		r = append(r, c)
	}
	return string(r)
}

// pdfDocHigh is PDFDocEncoding 0x80-0x9F (elsewhere it is Latin-1).
var pdfDocHigh = [32]rune{
	'•', '†', '‡', '…', '—', '–', 'ƒ', '⁄', '‹', '›', '−', '‰', '„', '“', '”', '‘',
	'’', '‚', '™', 'ﬁ', 'ﬂ', 'Ł', 'Œ', 'Š', 'Ÿ', 'Ž', 'ı', 'ł', 'œ', 'š', 'ž', '\ufffd',
}
