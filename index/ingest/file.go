package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/chunk"
)

// prepareFile reads, hashes, chunks and analyses one file. It returns nil
// when the stored document is already up to date.
func (in *Ingester) prepareFile(opt SyncOptions, f File, old *index.Document) *index.Prepared {
	doc := index.Document{Vault: opt.Vault, Path: f.Rel, Size: f.Size, ModTime: f.ModTime.UTC(), Kind: index.KindOf(f.Rel),
		Pipeline: pipeline(opt.Chunk) + ";" + in.store.FieldsSignature() + in.enrichSuffix(opt, index.KindOf(f.Rel))}
	if opt.MaxBytes > 0 && f.Size > opt.MaxBytes {
		reason := fmt.Sprintf("file is %s, over the vault's max_file_mb of %s", mb(f.Size), mb(opt.MaxBytes))
		if failedAlready(old, reason, f.Size) {
			return nil
		}
		return index.Failed(doc, reason)
	}
	// A note's chunk records hold its text: one whose text is larger than
	// a transaction can hold can never be indexed. Say so without reading
	// it (a 200 MB note took 735 MB of memory to fail at the commit).
	if doc.Kind == "markdown" || doc.Kind == "text" {
		if reason := tooLarge(f.Size, in.maxText()); reason != "" {
			if failedAlready(old, reason, f.Size) {
				return nil
			}
			return index.Failed(doc, reason)
		}
	}
	data, err := os.ReadFile(f.Abs)
	if err != nil {
		// The path is in the document already; keep only the cause.
		cause := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			cause = pe.Err
		}
		reason := "unreadable: " + cause.Error()
		if old != nil && old.Status == index.StatusFailed && old.Error == reason {
			return nil
		}
		return index.Failed(doc, reason)
	}
	sum := sha256.Sum256(data)
	doc.Hash = hex.EncodeToString(sum[:])
	doc.Size = int64(len(data))
	// A file nobody could extract is retried: an extractor may have been
	// configured since (below, an unchanged outcome is not rewritten).
	noExtractorBefore := old != nil && old.Status == index.StatusFailed && strings.HasPrefix(old.Error, "no extractor")
	if old != nil && old.Hash == doc.Hash && !noExtractorBefore && !old.Retry &&
		(old.Pipeline == doc.Pipeline || doc.Kind == "" && strings.HasPrefix(old.Pipeline, doc.Pipeline+"|")) {
		return nil // unchanged (an extracted file's pipeline also names its extractor)
	}
	var cd *chunk.Document
	switch doc.Kind {
	case "markdown", "text":
		if reason := badContent(data); reason != "" {
			return index.Failed(doc, reason)
		}
		if doc.Kind == "markdown" {
			cd, err = chunk.Markdown(data, opt.Chunk)
		} else {
			cd, err = chunk.PlainText(data, opt.Chunk)
		}
		if err != nil {
			return index.Failed(doc, err.Error())
		}
	default:
		var reason string
		if cd, reason = extract(opt, &doc, data, in.maxText()); cd == nil {
			if old != nil && old.Status == index.StatusFailed && old.Error == reason && old.Hash == doc.Hash && doc.Hash != "" {
				return nil
			}
			return index.Failed(doc, reason)
		}
	}
	base := path.Base(f.Rel)
	if in.noGraph {
		cd.Links = nil
	}
	p := in.store.Prepare(doc, cd, strings.TrimSuffix(base, path.Ext(base)))
	in.enrich(opt, p, cd, data)
	return p
}

// failedAlready reports whether old is recorded as failed for reason at
// this size, so that a file refused unread is not rewritten every pass.
func failedAlready(old *index.Document, reason string, size int64) bool {
	return old != nil && old.Status == index.StatusFailed && old.Error == reason && old.Size == size
}

// maxText is the most text one document may have (a note's bytes, or the
// text an extractor produced): its chunk records hold its text, and they
// are written in one transaction. The margin over the store's limit allows
// for frontmatter, which is not chunked; text just under it may still fail
// at the commit, once its index data is known.
func (in *Ingester) maxText() int64 { return in.store.MaxDocumentBytes() * 5 / 4 }

// tooLarge says why n bytes of text cannot be indexed in one transaction
// when at most limit can, or "".
func tooLarge(n, limit int64) string {
	if limit <= 0 || n <= limit {
		return ""
	}
	return fmt.Sprintf("too large to index in one transaction (%s of text; the limit is about %s)", mb(n), mb(limit))
}

// badContent returns why data cannot be indexed as text, or "".
func badContent(data []byte) string {
	if len(bytes.TrimSpace(data)) == 0 {
		return "empty file"
	}
	head := data
	if len(head) > 8192 {
		head = head[:8192]
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "binary file (contains NUL bytes)"
	}
	if !utf8.Valid(data) {
		return "not valid UTF-8 text"
	}
	return ""
}

// pipeline names the chunking settings, so that a change of them re-chunks
// every file on the next pass.
func pipeline(o chunk.Options) string {
	o = o.WithDefaults()
	return fmt.Sprintf("chunk%d:%d/%d/%d", chunk.Version, o.ChildChars, o.ChildOverlap, o.ParentChars)
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// underAny reports whether p is one of dirs or lies under one.
func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if d != "" && index.InScope(p, d) {
			return true
		}
	}
	return false
}

func inScopes(p string, scopes []string) bool {
	if len(scopes) == 0 {
		return true
	}
	for _, sc := range scopes {
		if index.InScope(p, sc) {
			return true
		}
	}
	return false
}
