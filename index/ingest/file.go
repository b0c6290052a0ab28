package ingest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/internal/filestat"
)

// racyWindow is how long after its last change a file's stat is trusted:
// timestamps are coarse (a clock tick on Linux, 1–2 s on HFS+, ext3 or
// FAT), so a file changed again within the same tick keeps its mtime and
// ctime. A file read sooner than this after its last change is "racily
// clean", as git calls it: the next pass reads it again instead of trusting
// its stat, and then records a stat it can trust. (A variable for tests.)
var racyWindow = 2 * time.Second

// readHook, if set (by tests), is called with every file read.
var readHook func(abs string)

// racy reports whether d was read too soon after its file last changed for
// its stat to prove the file unchanged.
func racy(d *index.Document) bool {
	return max(d.ModTime.UnixNano(), d.CTime) >= d.StatAt-int64(racyWindow)
}

// statUnchanged reports whether the file f describes is the one old was
// read from: the same size, modification time, inode and ctime, read long
// enough after its last change. Then it is not read or hashed again.
func statUnchanged(old *index.Document, f File) bool {
	return old.StatAt != 0 && old.Hash != "" && !racy(old) && sameStat(old, f.Size, f.ModTime, f.ID)
}

func sameStat(d *index.Document, size int64, mtime time.Time, id filestat.ID) bool {
	return d.Size == size && d.ModTime.Equal(mtime) && d.Inode == id.Ino && d.CTime == id.CTime
}

// readStat reads the file at abs into memory and records in doc the stat
// it was read with: its size, times and inode, and when it was stat'ed.
func readStat(abs string, doc *index.Document) ([]byte, error) {
	if readHook != nil {
		readHook(abs)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	at := time.Now()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, 0, max(fi.Size(), 0)+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)] // more than stat said: grow
		}
	}
	id := filestat.Of(fi)
	doc.Size, doc.ModTime, doc.Inode, doc.CTime, doc.StatAt = int64(len(data)), fi.ModTime().UTC(), id.Ino, id.CTime, at.UnixNano()
	return data, nil
}

// samePipeline reports whether old was indexed with the settings doc would
// be (an extracted file's pipeline also names its extractor, which is not
// known before extraction).
func samePipeline(old, doc *index.Document) bool {
	return old.Pipeline == doc.Pipeline || doc.Kind == "" && strings.HasPrefix(old.Pipeline, doc.Pipeline+"|")
}

// pipelineOf is the pipeline of a file of kind: the chunking settings, the
// note fields and the enricher.
func (in *Ingester) pipelineOf(opt SyncOptions, kind string) string {
	return pipeline(opt.Chunk) + ";" + in.store.FieldsSignature() + in.enrichSuffix(opt, kind)
}

// unchangedUnread reports what prepareFile would decide without reading
// the file, from the stat kept beside the stored document's path alone (no
// document record is read): that the file is the one the document was
// read from, with the same pipeline, and within the size limits. When it
// cannot tell, prepareFile decides on the whole record.
func (in *Ingester) unchangedUnread(opt SyncOptions, f File, old *index.StoredFile, pipes pipelineSums) bool {
	if old == nil || !old.Known {
		return false
	}
	kind := index.KindOf(f.Rel)
	if opt.MaxBytes > 0 && f.Size > opt.MaxBytes || (kind == "markdown" || kind == "text") && tooLarge(f.Size, in.maxText()) != "" {
		return false
	}
	st := &old.Stat
	if !st.Hashed || st.Retry || st.NoExtractor || st.StatAt == 0 || max(st.ModTime, st.CTime) >= st.StatAt-int64(racyWindow) {
		return false
	}
	if st.Size != f.Size || st.ModTime != f.ModTime.UnixNano() || st.Inode != f.ID.Ino || st.CTime != f.ID.CTime {
		return false
	}
	return st.Pipeline == pipes[kind]
}

// pipelineSums are the checksums of the pipelines of each kind of file
// (index.KindOf) in a pass.
type pipelineSums map[string]uint64

func (in *Ingester) pipelineSums(opt SyncOptions) pipelineSums {
	p := make(pipelineSums, 3)
	for _, kind := range []string{"markdown", "text", ""} {
		p[kind] = index.PipelineSum(in.pipelineOf(opt, kind))
	}
	return p
}

// storedDocument reads the whole record of a stored file (nil for none).
// One that cannot be read is logged and taken for absent: the file is
// indexed again over it.
func (in *Ingester) storedDocument(vault string, old *index.StoredFile) *index.Document {
	if old == nil {
		return nil
	}
	d, err := in.store.Document(vault, old.Path)
	if err != nil {
		in.log.Warn("stored document unreadable; indexing its file again", "path", old.Path, "err", err)
		return nil
	}
	return d
}

// prepareFile reads, hashes, chunks and analyses one file. It returns a
// nil document when the stored one is already up to date — with the
// record to store instead when only the file's stat changed (refresh).
func (in *Ingester) prepareFile(opt SyncOptions, f File, old *index.Document) (p *index.Prepared, refresh *index.Document) {
	doc := index.Document{Vault: opt.Vault, Path: f.Rel, Size: f.Size, ModTime: f.ModTime.UTC(), Kind: index.KindOf(f.Rel),
		Pipeline: in.pipelineOf(opt, index.KindOf(f.Rel))}
	if opt.MaxBytes > 0 && f.Size > opt.MaxBytes {
		reason := fmt.Sprintf("file is %s, over the vault's max_file_mb of %s", mb(f.Size), mb(opt.MaxBytes))
		if failedAlready(old, reason, f.Size) {
			return nil, nil
		}
		return index.Failed(doc, reason), nil
	}
	// A note's chunk records hold its text: one whose text is larger than
	// a transaction can hold can never be indexed. Say so without reading
	// it (a 200 MB note took 735 MB of memory to fail at the commit).
	if doc.Kind == "markdown" || doc.Kind == "text" {
		if reason := tooLarge(f.Size, in.maxText()); reason != "" {
			if failedAlready(old, reason, f.Size) {
				return nil, nil
			}
			return index.Failed(doc, reason), nil
		}
	}
	// A file nobody could extract is retried: an extractor may have been
	// configured since (below, an unchanged outcome is not rewritten).
	noExtractorBefore := old != nil && old.Status == index.StatusFailed && strings.HasPrefix(old.Error, "no extractor")
	if old != nil && !noExtractorBefore && !old.Retry && statUnchanged(old, f) && samePipeline(old, &doc) {
		return nil, nil
	}
	data, err := readStat(f.Abs, &doc)
	if err != nil {
		// The path is in the document already; keep only the cause.
		cause := err
		var pe *fs.PathError
		if errors.As(err, &pe) {
			cause = pe.Err
		}
		reason := "unreadable: " + cause.Error()
		if old != nil && old.Status == index.StatusFailed && old.Error == reason {
			return nil, nil
		}
		return index.Failed(doc, reason), nil
	}
	sum := sha256.Sum256(data)
	doc.Hash = hex.EncodeToString(sum[:])
	if old != nil && old.Hash == doc.Hash && !noExtractorBefore && !old.Retry && samePipeline(old, &doc) {
		// Unchanged. Record the stat it was read with, unless the stored
		// one can be trusted already, so the next pass need not read it.
		if !racy(old) && sameStat(old, doc.Size, doc.ModTime, filestat.ID{Ino: doc.Inode, CTime: doc.CTime}) {
			return nil, nil
		}
		return nil, &doc
	}
	var cd *chunk.Document
	switch doc.Kind {
	case "markdown", "text":
		if reason := badContent(data); reason != "" {
			return index.Failed(doc, reason), nil
		}
		if doc.Kind == "markdown" {
			cd, err = chunk.Markdown(data, opt.Chunk)
		} else {
			cd, err = chunk.PlainText(data, opt.Chunk)
		}
		if err != nil {
			return index.Failed(doc, err.Error()), nil
		}
	default:
		var reason string
		if cd, reason = extract(opt, &doc, data, in.maxText()); cd == nil {
			if old != nil && old.Status == index.StatusFailed && old.Error == reason && old.Hash == doc.Hash && doc.Hash != "" {
				return nil, nil
			}
			return index.Failed(doc, reason), nil
		}
	}
	base := path.Base(f.Rel)
	if in.noGraph {
		cd.Links = nil
	}
	p = in.store.Prepare(doc, cd, strings.TrimSuffix(base, path.Ext(base)))
	in.enrich(opt, p, cd, data)
	return p, nil
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
