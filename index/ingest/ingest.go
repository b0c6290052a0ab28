// Package ingest brings the index in line with the files of a vault: for
// each file it decides whether the stored document is still current,
// reads, hashes, extracts (through an extractor plugin, for PDF and the
// like), chunks, analyses and enriches it on a pool of workers, and hands
// the prepared documents to one writer that commits them to the store in
// batches (index.Store.Apply: one Badger transaction per batch, a document
// never split). Documents that vanished from disk are deleted.
//
// The package consumes the store through the small Store interface; it
// owns no keys or records of its own (the extraction and enrichment caches
// are values it encodes in the store's caches).
package ingest

import (
	"context"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/chunk"
	"github.com/ragd/ragd/internal/filestat"
)

// Store is what ingestion needs of the index.
type Store interface {
	// Analyzer is the analyzer documents are indexed with.
	Analyzer() *analyze.Analyzer
	// Prepare analyses a chunked document into the records to store, with
	// the store's note fields; FieldsSignature names those settings.
	Prepare(doc index.Document, cd *chunk.Document, fallback string) *index.Prepared
	FieldsSignature() string
	// StoredFiles lists the stored documents of a vault under scopes (all
	// of them when there are none) with the stat each was read with, from
	// their path keys alone; Document reads one's whole record.
	StoredFiles(vault string, scopes []string) ([]index.StoredFile, error)
	Document(vault, path string) (*index.Document, error)
	// Apply commits prepared documents and deletions, each document in
	// one transaction.
	Apply(ops []index.Op) error
	// BeginBulk readies the store for a pass that may add many documents
	// (index.Store.BeginBulk); end makes them all searchable.
	BeginBulk() (end func())
	// MaxDocumentBytes is about the most index data one document may have.
	MaxDocumentBytes() int64
	// Cached and PutCache read and write the plugin caches.
	Cached(c index.Cache, sha, plugin string) ([]byte, bool, error)
	PutCache(c index.Cache, sha, plugin string, val []byte) error
}

// Options configure an Ingester.
type Options struct {
	Logger *slog.Logger
	// NoGraph skips building the entity graph (links, tags, model
	// entities) of documents.
	NoGraph bool
}

// Ingester indexes the files of vaults into a store.
type Ingester struct {
	store   Store
	log     *slog.Logger
	noGraph bool
}

// New returns an Ingester writing to store.
func New(store Store, opt Options) *Ingester {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	return &Ingester{store: store, log: opt.Logger, noGraph: opt.NoGraph}
}

// File is a file found in a vault by a scan.
type File struct {
	Rel     string // slash-separated path relative to the vault root
	Abs     string // absolute path to read
	Size    int64
	ModTime time.Time
	ID      filestat.ID // inode and ctime; zero when unknown
}

// SyncOptions configure one Sync.
type SyncOptions struct {
	Vault    string
	MaxBytes int64 // files larger than this are recorded as failed; 0 = no cap
	Chunk    chunk.Options
	Workers  int // 0 = GOMAXPROCS
	// Scopes limit the pass to these files and folders (vault-relative
	// paths): the files given to Sync are everything on disk under them,
	// and only stored documents under them are considered for deletion.
	// No scopes: the files are the whole vault.
	Scopes []string
	// KeepMissing leaves stored documents that are missing from the files
	// alone: new and changed files are indexed, nothing is removed (the
	// daemon holds a mass deletion until it is confirmed).
	KeepMissing bool
	// Unreadable are vault-relative folders that could not be read: the
	// stored documents under them are kept as they are, not taken for
	// deleted.
	Unreadable []string
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
	Progress *Progress
	// Yield, if set, gives way to the daemon's clients: the workers call
	// it before each file and the writer before each commit, and it may
	// block a few milliseconds while a request waits to be read
	// (ipc.Listener.Yield).
	Yield func()
}

// SyncResult counts what a Sync did.
type SyncResult struct {
	Indexed   int `json:"indexed"`
	Unchanged int `json:"unchanged"`
	Removed   int `json:"removed"`
	Failed    int `json:"failed"`
	// Retry lists the files that failed for a transient reason (their
	// extractor crashed, timed out or was restarting): worth trying again
	// when the extractor is healthy.
	Retry []string `json:"retry,omitempty"`
}

// Progress is updated while a Sync runs; all fields are read atomically.
type Progress struct {
	Total atomic.Int64 // files to examine
	Done  atomic.Int64 // files examined (indexed, unchanged or failed)
}

// batchDocs bounds how many documents share one write transaction.
const batchDocs = 256

// bulkFiles is how many files make a pass a bulk one (Store.BeginBulk): a
// cold index or a large start-up pass, not a saved note.
const bulkFiles = 512

// Sync brings the stored documents of a vault in line with files: new and
// changed files (by content hash) are indexed, unchanged ones are skipped
// without touching their chunks, and vanished ones removed. When ctx is
// cancelled Sync stops reading files, commits the batch it holds and
// returns ctx's error. When a write fails Sync stops reading files too and
// returns that error; what was committed before stays committed.
func (in *Ingester) Sync(ctx context.Context, opt SyncOptions, files []File) (SyncResult, error) {
	var res SyncResult
	stored, err := in.store.StoredFiles(opt.Vault, opt.Scopes)
	if err != nil {
		return res, err
	}
	byPath := make(map[string]*index.StoredFile, len(stored))
	for i := range stored {
		byPath[stored[i].Path] = &stored[i]
	}
	seen := make(map[string]bool, len(files))
	for _, f := range files {
		seen[f.Rel] = true
	}
	var dels []index.Op
	for _, d := range stored {
		if !seen[d.Path] && inScopes(d.Path, opt.Scopes) && !opt.KeepMissing && !underAny(d.Path, opt.Unreadable) {
			dels = append(dels, index.Op{Vault: opt.Vault, Path: d.Path})
		}
	}
	if opt.Progress == nil {
		opt.Progress = &Progress{}
	}
	opt.Progress.Total.Add(int64(len(files)))
	if len(dels) > 0 {
		if err := in.store.Apply(dels); err != nil {
			return res, err
		}
		res.Removed = len(dels)
		if opt.OnDoc != nil {
			for _, d := range dels {
				opt.OnDoc("removed", d.Path, "")
			}
		}
	}

	if len(files) >= bulkFiles {
		end := in.store.BeginBulk()
		defer end()
	}

	// A failed write cancels the feeder and the workers: reading and
	// chunking the rest of the vault would be for nothing.
	feedCtx, stopFeeding := context.WithCancel(ctx)
	defer stopFeeding()
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	pipes := in.pipelineSums(opt)
	work := make(chan File)
	// Room for a batch, so the workers go on preparing files while the
	// writer commits one.
	out := make(chan index.Op, batchDocs)
	var unchanged atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				if feedCtx.Err() != nil {
					continue // a write failed or the pass was cancelled
				}
				if opt.Yield != nil {
					opt.Yield()
				}
				old := byPath[f.Rel]
				if in.unchangedUnread(opt, f, old, pipes) {
					unchanged.Add(1)
					opt.Progress.Done.Add(1)
					continue
				}
				doc := in.storedDocument(opt.Vault, old)
				p, refresh := in.prepareFile(opt, f, doc)
				if p == nil && refresh == nil && doc != nil && !old.Known {
					// Unchanged, in a store written before the stat was
					// kept beside the path: keep it there now.
					refresh = doc
				}
				if p == nil {
					unchanged.Add(1)
					opt.Progress.Done.Add(1)
					if refresh != nil {
						out <- index.Op{Refresh: refresh}
					}
					continue
				}
				p.Encode()
				out <- index.Op{Put: p}
			}
		}()
	}
	go func() {
		defer close(work)
		for _, f := range files {
			select {
			case work <- f:
			case <-feedCtx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(out) }()

	var batch []index.Op
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if opt.Yield != nil {
			opt.Yield()
		}
		err := in.store.Apply(batch)
		if err == nil {
			for _, op := range batch {
				if op.Put == nil {
					continue // a refreshed stat: counted as unchanged
				}
				if op.Put.Doc.Status == index.StatusOK {
					res.Indexed++
				} else {
					res.Failed++
					if op.Put.Doc.Retry {
						res.Retry = append(res.Retry, op.Put.Doc.Path)
					}
				}
				if opt.OnDoc != nil {
					if op.Put.Doc.Status == index.StatusOK {
						opt.OnDoc("indexed", op.Put.Doc.Path, "")
					} else {
						opt.OnDoc("failed", op.Put.Doc.Path, op.Put.Doc.Error)
					}
				}
				opt.Progress.Done.Add(1)
			}
		}
		clear(batch) // the committed documents can be collected now
		batch = batch[:0]
		return err
	}
	for op := range out {
		batch = append(batch, op)
		if len(batch) >= batchDocs || len(out) == 0 {
			if err := flush(); err != nil {
				stopFeeding()
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
