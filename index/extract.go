package index

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/ragd/ragd/index/chunk"
)

// Extracted is the text an extractor produced for a file that is not
// Markdown or plain text (PDF, DOCX, HTML, or anything a plugin handles).
// Citations of its chunks are line ranges of Text, which is stored with
// the chunks.
type Extracted struct {
	Text      string
	Markdown  bool   // chunk Text by headings; else by paragraphs
	Title     string // "" to take it from Text or the file name
	Pages     []int  // Pages[i] is the 1-based line of Text where page i+1 begins
	Extractor string // name and version, part of the document's pipeline
}

// ExtractFunc extracts the text of a file from its bytes; sha is the hex
// SHA-256 of data (a cache key). handled is false when no extractor takes
// the file. An error wrapping ErrTransient (a plugin that crashed or timed
// out) records the file as failed but retries it on the next pass.
type ExtractFunc func(rel, sha string, data []byte) (x *Extracted, handled bool, err error)

// ErrTransient marks an extraction failure worth retrying later.
var ErrTransient = errors.New("transient failure")

// extract runs opt.Extract for a file that is not Markdown or text and
// chunks the result. A nil document and a non-empty reason mean failure.
func (s *Store) extract(opt SyncOptions, doc *Document, data []byte) (*chunk.Document, string) {
	if opt.Extract == nil {
		return nil, fmt.Sprintf("no extractor for %q files", path.Ext(doc.Path))
	}
	x, handled, err := opt.Extract(doc.Path, doc.Hash, data)
	if !handled {
		return nil, fmt.Sprintf("no extractor for %q files", path.Ext(doc.Path))
	}
	if err != nil {
		if errors.Is(err, ErrTransient) {
			doc.Hash = "" // not up to date: the next pass tries again
		}
		return nil, "extraction failed: " + err.Error()
	}
	doc.Kind = strings.TrimPrefix(strings.ToLower(path.Ext(doc.Path)), ".")
	doc.Pipeline += "|" + x.Extractor
	if strings.TrimSpace(x.Text) == "" {
		return nil, "no text could be extracted"
	}
	var cd *chunk.Document
	if x.Markdown {
		cd, err = chunk.Markdown([]byte(x.Text), opt.Chunk)
	} else {
		cd, err = chunk.PlainText([]byte(x.Text), opt.Chunk)
	}
	if err != nil {
		return nil, err.Error()
	}
	if x.Title != "" {
		cd.Title = x.Title
	}
	doc.Pages = x.Pages
	return cd, ""
}

// pageOf returns the 1-based page holding line, or 0 without a page map.
func pageOf(pages []int, line int) int {
	p := 0
	for i, start := range pages {
		if start > line {
			break
		}
		p = i + 1
	}
	return p
}

// IsText reports whether a file is indexed as it is on disk (Markdown or
// plain text), so its citations' lines can be read back from the file;
// other files' text comes from an extractor.
func IsText(rel string) bool { return kindOf(rel) != "" }
