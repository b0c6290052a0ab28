// Package doctext returns the text of an indexed file as its citations
// number it: a Markdown or text file as it is on disk, and a file that an
// extractor turned into text (PDF, DOCX, HTML, a plugin's type) as the
// extracted text its chunks were cut from, with the page map of a PDF. A
// citation "report.pdf:L40-L52" therefore names lines 40 to 52 of what
// Read returns, whatever the file's format.
//
// Files are read through an os.Root of the vault, so a path (or a symbolic
// link) that leads out of the vault is refused.
package doctext

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// Limits of one Read: at most this many lines and bytes are returned; the
// caller continues from NextLine.
const (
	MaxLines = 2000
	MaxBytes = 1 << 20
	// maxFileBytes bounds the file read to extract or slice.
	maxFileBytes = 256 << 20
)

// ErrNotFound is returned when the file does not exist in the vault.
var ErrNotFound = errors.New("no such file")

// ErrRefused is returned for a path that leads out of the vault, or that is
// not a regular file.
var ErrRefused = errors.New("refused")

// ErrRange is returned when the first line asked for is past the end.
var ErrRange = errors.New("line out of range")

// Extracted is an extractor's text of a file: what its chunks were cut
// from.
type Extracted struct {
	Text  string
	Pages []int // Pages[i] is the line where page i+1 begins; empty without pages
}

// Extractor returns the extracted text of a file from its bytes and their
// hex SHA-256 (a cache key).
type Extractor func(rel, sha string, data []byte) (*Extracted, error)

// Request names a file of a vault and the lines wanted.
type Request struct {
	Root string // the vault root
	Rel  string // slash-separated, relative to Root
	// IndexedHash is the hex SHA-256 of the file when it was indexed: the
	// text is marked stale when the file differs now.
	IndexedHash string
	// Extract is set for files that are not indexed as they are on disk.
	Extract Extractor
	// From and To are the 1-based, inclusive lines wanted; 0 means the
	// first line and the last.
	From, To int
}

// Text is a range of lines of a file's indexed text.
type Text struct {
	Text      string
	LineStart int   // first line returned
	LineEnd   int   // last line returned (0: nothing, an empty file)
	Lines     int   // lines in the whole text
	Pages     []int // page map of the whole text (PDF); empty otherwise
	Extracted bool  // the text is an extractor's, not the file's bytes
	// Truncated is set when the range goes on past MaxLines or MaxBytes;
	// NextLine continues it.
	Truncated bool
	NextLine  int
	// Stale is set when the file changed since it was indexed: citations
	// may not match these lines any more.
	Stale bool
}

// Read returns lines From..To of the file's indexed text.
func Read(req Request) (*Text, error) {
	if req.From < 0 || req.To < 0 || (req.To != 0 && req.To < max(req.From, 1)) {
		return nil, fmt.Errorf("%w: lines %d to %d", ErrRange, req.From, req.To)
	}
	data, err := readFile(req.Root, req.Rel)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	out := &Text{Stale: req.IndexedHash != "" && sha != req.IndexedHash}
	text := data
	if req.Extract != nil {
		x, err := req.Extract(req.Rel, sha, data)
		if err != nil {
			return nil, fmt.Errorf("extract %s: %w", req.Rel, err)
		}
		text, out.Pages, out.Extracted = []byte(x.Text), x.Pages, true
	} else if bytes.IndexByte(text[:min(len(text), 8<<10)], 0) >= 0 {
		return nil, fmt.Errorf("%w: %s holds NUL bytes (a binary file)", ErrRefused, req.Rel)
	}
	slice(out, text, max(req.From, 1), req.To)
	if out.LineEnd == 0 && req.From > 1 {
		return nil, fmt.Errorf("%w: line %d is past the end: %s has %d lines", ErrRange, req.From, req.Rel, out.Lines)
	}
	return out, nil
}

// readFile reads rel inside root, refusing paths and links that lead out of
// it and files that are not regular. A link is followed only when it
// resolves inside the root (an absolute link to a file of the vault is
// fine); the resolved file is then opened through an os.Root of the
// resolved root, so the check holds even if links change meanwhile.
func readFile(root, rel string) ([]byte, error) {
	local := filepath.FromSlash(rel)
	if !filepath.IsLocal(local) {
		return nil, fmt.Errorf("%w: %s leads out of the vault", ErrRefused, rel)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("open vault %s: %w", root, err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(root, local))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, rel)
	} else if err != nil {
		return nil, fmt.Errorf("%s: %w", rel, err)
	}
	realRel, err := filepath.Rel(realRoot, real)
	if err != nil || !filepath.IsLocal(realRel) {
		return nil, fmt.Errorf("%w: %s is a symbolic link that leads out of the vault", ErrRefused, rel)
	}
	r, err := os.OpenRoot(realRoot)
	if err != nil {
		return nil, fmt.Errorf("open vault %s: %w", root, err)
	}
	defer r.Close()
	f, err := r.Open(realRel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s", ErrNotFound, rel)
	} else if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrRefused, rel, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrRefused, rel)
	}
	if fi.Size() > maxFileBytes {
		return nil, fmt.Errorf("%w: %s is %d MiB, over %d MiB", ErrRefused, rel, fi.Size()>>20, maxFileBytes>>20)
	}
	return io.ReadAll(io.LimitReader(f, maxFileBytes))
}

// slice fills out with lines from..to (0: to the end) of text, keeping
// their line endings, cut after MaxLines lines or MaxBytes bytes. Only
// whole lines are returned, unless the first line alone is over MaxBytes.
func slice(out *Text, text []byte, from, to int) {
	out.LineStart = from
	var b []byte
	line := 1
	for len(text) > 0 {
		end := bytes.IndexByte(text, '\n') + 1
		if end == 0 {
			end = len(text)
		}
		l := text[:end]
		text = text[end:]
		if line >= from && (to == 0 || line <= to) && !out.Truncated {
			switch {
			case line-from >= MaxLines:
				out.Truncated, out.NextLine = true, line
			case len(b)+len(l) > MaxBytes && len(b) > 0:
				out.Truncated, out.NextLine = true, line
			case len(l) > MaxBytes:
				// The first line alone is over the limit: cut it at a rune
				// boundary.
				n := MaxBytes
				for n > 0 && !utf8.RuneStart(l[n]) {
					n--
				}
				b = append(b, l[:n]...)
				out.LineEnd, out.Truncated, out.NextLine = line, true, line+1
			default:
				b = append(b, l...)
				out.LineEnd = line
			}
		}
		line++
	}
	out.Lines = line - 1
	out.Text = string(b)
}

// PageOf returns the 1-based page holding line, or 0 without a page map.
func PageOf(pages []int, line int) int {
	p := 0
	for i, start := range pages {
		if start > line {
			break
		}
		p = i + 1
	}
	return p
}
