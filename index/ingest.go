package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/ragd/ragd/index/chunk"
)

// File is a file found in a vault by a scan.
type File struct {
	Rel     string // slash-separated path relative to the vault root
	Abs     string // absolute path to read
	Size    int64
	ModTime time.Time
}

// SyncOptions configure one Sync.
type SyncOptions struct {
	Vault    string
	MaxBytes int64 // files larger than this are recorded as failed; 0 = no cap
	Chunk    chunk.Options
	Workers  int // 0 = GOMAXPROCS
	// Complete says files is the whole vault: stored documents missing from
	// it are deleted. When false only the given files are considered, and
	// Deleted lists paths to remove.
	Complete bool
	// Scopes, with Complete, limit the pass to these files and folders
	// (vault-relative paths): files holds everything on disk under them,
	// and only stored documents under them are considered for deletion.
	Scopes []string
	// OnDoc, if set, is called after each commit for every document
	// written or removed, with op "indexed", "removed" or "failed".
	OnDoc func(op, path, reason string)
	// Extract extracts files that are not Markdown or plain text; nil
	// records them as failed ("no extractor").
	Extract ExtractFunc
	// Enrich, if set, adds a model's typed entities and facts to the
	// graph of Markdown and text notes (enrich.go); Enricher names it and
	// is part of their pipeline, so a note is enriched again when it
	// changes.
	Enrich   EnrichFunc
	Enricher string
	Deleted  []string
	Progress *Progress
}

// SyncResult counts what a Sync did.
type SyncResult struct {
	Indexed   int `json:"indexed"`
	Unchanged int `json:"unchanged"`
	Removed   int `json:"removed"`
	Failed    int `json:"failed"`
}

// Progress is updated while a Sync runs; all fields are read atomically.
type Progress struct {
	Total atomic.Int64 // files to examine
	Done  atomic.Int64 // files examined (indexed, unchanged or failed)
}

// batchDocs bounds how many documents share one write transaction.
const batchDocs = 256

// Sync brings the stored documents of a vault in line with files: new and
// changed files (by content hash) are indexed, unchanged ones are skipped
// without touching their chunks, and vanished ones removed. When ctx is
// cancelled Sync stops reading files, commits the batch it holds and
// returns ctx's error.
func (s *Store) Sync(ctx context.Context, opt SyncOptions, files []File) (SyncResult, error) {
	var res SyncResult
	var stored []Document
	var err error
	if opt.Complete && len(opt.Scopes) > 0 {
		stored, err = s.documentsIn(opt.Vault, opt.Scopes)
	} else if opt.Complete || len(files) > 64 {
		stored, err = s.Documents(opt.Vault)
	} else {
		stored, err = s.documentsAt(opt.Vault, files, opt.Deleted)
	}
	if err != nil {
		return res, err
	}
	byPath := make(map[string]*Document, len(stored))
	for i := range stored {
		byPath[stored[i].Path] = &stored[i]
	}
	var dels []Op
	if opt.Complete {
		seen := make(map[string]bool, len(files))
		for _, f := range files {
			seen[f.Rel] = true
		}
		for _, d := range stored {
			if !seen[d.Path] && inScopes(d.Path, opt.Scopes) {
				dels = append(dels, Op{Vault: opt.Vault, Path: d.Path})
			}
		}
	}
	for _, p := range opt.Deleted {
		if byPath[p] != nil {
			dels = append(dels, Op{Vault: opt.Vault, Path: p})
		}
	}
	if opt.Progress == nil {
		opt.Progress = &Progress{}
	}
	opt.Progress.Total.Add(int64(len(files)))
	if len(dels) > 0 {
		if err := s.Apply(dels); err != nil {
			return res, err
		}
		res.Removed = len(dels)
		if opt.OnDoc != nil {
			for _, d := range dels {
				opt.OnDoc("removed", d.Path, "")
			}
		}
	}

	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	work := make(chan File)
	out := make(chan *Prepared, workers*4)
	var unchanged atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				p := s.prepareFile(opt, f, byPath[f.Rel])
				if p == nil {
					unchanged.Add(1)
					opt.Progress.Done.Add(1)
					continue
				}
				if err := p.encode(); err != nil {
					p = Failed(p.Doc, "cannot encode: "+err.Error())
				}
				p.dropText()
				out <- p
			}
		}()
	}
	go func() {
		defer close(work)
		for _, f := range files {
			select {
			case work <- f:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()

	var batch []Op
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := s.Apply(batch)
		if err == nil {
			for _, op := range batch {
				if op.Put.Doc.Status == StatusOK {
					res.Indexed++
				} else {
					res.Failed++
				}
				if opt.OnDoc != nil {
					if op.Put.Doc.Status == StatusOK {
						opt.OnDoc("indexed", op.Put.Doc.Path, "")
					} else {
						opt.OnDoc("failed", op.Put.Doc.Path, op.Put.Doc.Error)
					}
				}
			}
			opt.Progress.Done.Add(int64(len(batch)))
		}
		clear(batch) // the committed documents can be collected now
		batch = batch[:0]
		return err
	}
	for p := range out {
		batch = append(batch, Op{Put: p})
		if len(batch) >= batchDocs || len(out) == 0 {
			if err := flush(); err != nil {
				// Drain so the workers can exit.
				for range out {
				}
				return res, err
			}
		}
	}
	if err := flush(); err != nil {
		return res, err
	}
	res.Unchanged = int(unchanged.Load())
	return res, ctx.Err()
}

// prepareFile reads, hashes, chunks and analyses one file. It returns nil
// when the stored document is already up to date.
func (s *Store) prepareFile(opt SyncOptions, f File, old *Document) *Prepared {
	doc := Document{Vault: opt.Vault, Path: f.Rel, Size: f.Size, ModTime: f.ModTime.UTC(), Kind: kindOf(f.Rel),
		Pipeline: pipeline(opt.Chunk) + s.enrichSuffix(opt, kindOf(f.Rel))}
	if opt.MaxBytes > 0 && f.Size > opt.MaxBytes {
		reason := fmt.Sprintf("file is %s, over the vault's max_file_mb of %s", mb(f.Size), mb(opt.MaxBytes))
		if old != nil && old.Status == StatusFailed && old.Error == reason && old.Size == f.Size {
			return nil
		}
		return Failed(doc, reason)
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
		if old != nil && old.Status == StatusFailed && old.Error == reason {
			return nil
		}
		return Failed(doc, reason)
	}
	sum := sha256.Sum256(data)
	doc.Hash = hex.EncodeToString(sum[:])
	doc.Size = int64(len(data))
	// A file nobody could extract is retried: an extractor may have been
	// configured since (below, an unchanged outcome is not rewritten).
	noExtractorBefore := old != nil && old.Status == StatusFailed && strings.HasPrefix(old.Error, "no extractor")
	if old != nil && old.Hash == doc.Hash && !noExtractorBefore &&
		(old.Pipeline == doc.Pipeline || doc.Kind == "" && strings.HasPrefix(old.Pipeline, doc.Pipeline+"|")) {
		return nil // unchanged (an extracted file's pipeline also names its extractor)
	}
	var cd *chunk.Document
	switch doc.Kind {
	case "markdown", "text":
		if reason := badContent(data); reason != "" {
			return Failed(doc, reason)
		}
		if doc.Kind == "markdown" {
			cd, err = chunk.Markdown(data, opt.Chunk)
		} else {
			cd, err = chunk.PlainText(data, opt.Chunk)
		}
		if err != nil {
			return Failed(doc, err.Error())
		}
	default:
		var reason string
		if cd, reason = s.extract(opt, &doc, data); cd == nil {
			if old != nil && old.Status == StatusFailed && old.Error == reason && old.Hash == doc.Hash && doc.Hash != "" {
				return nil
			}
			return Failed(doc, reason)
		}
	}
	base := path.Base(f.Rel)
	if s.noGraph {
		cd.Links = nil
	}
	p := Prepare(s.an, doc, cd, strings.TrimSuffix(base, path.Ext(base)))
	s.enrich(opt, p, data)
	return p
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

func kindOf(rel string) string {
	switch strings.ToLower(path.Ext(rel)) {
	case ".md", ".markdown", ".mdown", ".mkd":
		return "markdown"
	case ".txt", ".text":
		return "text"
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

func inScopes(p string, scopes []string) bool {
	if len(scopes) == 0 {
		return true
	}
	for _, sc := range scopes {
		if InScope(p, sc) {
			return true
		}
	}
	return false
}

// InScope reports whether the vault-relative path p is the file or lies in
// the folder named by scope ("" is the whole vault).
func InScope(p, scope string) bool {
	scope = strings.Trim(scope, "/")
	return scope == "" || p == scope || strings.HasPrefix(p, scope+"/")
}
