package ingest

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/ragd/ragd/index"
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
// chunks the result, unless it is over maxText bytes. A nil document and a
// non-empty reason mean failure.
func extract(opt SyncOptions, doc *index.Document, data []byte, maxText int64) (*chunk.Document, string) {
	if opt.Extract == nil {
		return nil, fmt.Sprintf("no extractor for %q files", path.Ext(doc.Path))
	}
	x, handled, err := opt.Extract(doc.Path, doc.Hash, data)
	if !handled {
		return nil, fmt.Sprintf("no extractor for %q files", path.Ext(doc.Path))
	}
	if err != nil {
		if errors.Is(err, ErrTransient) {
			// Never recorded as done: the next pass, and the daemon when
			// the extractor is healthy again, try again.
			doc.Hash, doc.Retry = "", true
		}
		return nil, "extraction failed: " + err.Error()
	}
	doc.Kind = strings.TrimPrefix(strings.ToLower(path.Ext(doc.Path)), ".")
	doc.Pipeline += "|" + x.Extractor
	if strings.TrimSpace(x.Text) == "" {
		return nil, "no text could be extracted"
	}
	if reason := tooLarge(int64(len(x.Text)), maxText); reason != "" {
		return nil, reason
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
