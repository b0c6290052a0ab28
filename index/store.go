package index

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/ragd/ragd/index/analyze"
	"github.com/ragd/ragd/index/segment"
)

// schemaVersion is bumped whenever the key layout or a record encoding
// changes; a store with another version is rebuilt from the vaults.
// 2: graph records (g/); 3: graph stems; 4: chunk hashes in f/; 5: typed
// entity mentions and facts from a model in g/, enrichment cache (y/); 6:
// binary chunk, parent and graph records and a denser postings block
// (codec.go, codec_chunk.go, codec_graph.go); 7: postings in segment files
// (index/segment), f/ holds each note's segment record, the failed-document
// list (e/) and the journal (j/, m/seq); 8: a document's chunks and parents
// in one record (c/<doc>) instead of a key each (c/ and a/), and the
// folder indexed as a property (note.go); 9: the aliases in f/ and in the
// segments' note data (for the reranker).
const schemaVersion = 9

// valueThreshold sends every value of at least this many bytes — chunk
// records, postings blocks, graph and document records, vectors — to
// Badger's value log, leaving keys, value pointers and small values in the
// LSM tree. Memtables then fill about nine times slower (a cold index of a
// 15 MB vault fits in one, so it is never flushed or compacted during the
// pass, and no table builders or tables are held), which took ~90 MB off the
// peak memory of a cold start. The price is garbage in the value log when
// notes change: gcValueLog reclaims it.
const valueThreshold = 256

// valueLogFileSize is the size at which Badger starts a new value log file
// (a variable for tests); only full files are garbage collected.
var valueLogFileSize int64 = 64 << 20

// vlogGCInterval is how often the value log's garbage is collected.
const vlogGCInterval = 10 * time.Minute

// ErrClosed is returned by reads of a closed store.
var ErrClosed = errors.New("index: store closed")

// ErrLocked is returned by Open when another process holds the data dir.
var ErrLocked = errors.New("index: data directory is in use by another process")

// Options configure a Store.
type Options struct {
	Dir    string // Badger directory; the segments live in its segments/
	BM25   BM25
	Logger *slog.Logger
	// Fields says which note fields are indexed (DefaultFields if zero).
	Fields Fields
	// MinFree is the room every write must leave on the data directory's
	// file system (DefaultMinFree when 0); a write that would not is
	// refused with a *DiskFullError.
	MinFree int64
	// Yield, if set, is called while large segments are laid out and may
	// block for a while (segment.Options.Yield): the daemon gives way to
	// its clients there.
	Yield func()
}

// Store is the Badger-backed index with its in-memory BM25 postings, entity
// graph and vector indexes.
//
// Locks, in the order they are taken (a lock is never taken while a later
// one is held), and none of them held by a search across I/O:
//
//  1. wmu (Store) — one document writer at a time (Apply, DropVault, Check,
//     Close); guards stats and vcounts. Held across the Badger commit of a
//     batch; searches never take it.
//  2. vecs.wmu (vectorState) — one vector writer at a time (UseEmbedder,
//     PutVectors, CollectVectors, SaveVectorSnapshots, swaps). Held across
//     their Badger commits and snapshot files; searches never take it.
//  3. vecs.mu (vectorState, RW) — which vector spaces are loaded and their
//     fields; held shared by vector searches, exclusively only to swap a
//     pointer, never across I/O. A space's vector.Index has locks of its
//     own and is safe beside searches, also while it is being saved.
//  4. mem.mu (memIndex, RW) — the entity graph (index/graph) and vector
//     backlogs. Taken after a transaction has committed, and by the
//     graph's load after Open (graph_load.go) per batch of decoded
//     records; never held while Badger or a file is read or written.
//     Status does not take it: the graph's counts and the backlogs' sizes
//     are published as they change.
//  5. mem.tmu (memIndex) — the failed documents and the per-vault counts;
//     held only to read or replace them.
//
// The segment set (lex) has its own lock, taken alone or innermost.
type Store struct {
	dir      string
	db       *badger.DB
	log      *slog.Logger
	mem      *memIndex
	lex      *segment.Set // the lexical index (lexical.go)
	closed   atomic.Bool
	seq      uint64 // the journal's last sequence number; guarded by wmu
	params   BM25
	fields   Fields
	an       *analyze.Analyzer
	yield    func()        // Options.Yield, or nil
	wmu      sync.Mutex    // one writer at a time; guards stats and vcounts
	stopGC   chan struct{} // closed by Close: ends collectGarbage and warmAnchors
	warm     chan struct{} // a change since the last warm of the anchor keys (warm.go)
	stopOnce sync.Once
	gcDone   sync.WaitGroup
	stats    Stats
	vcounts  map[string]VaultCount // per-vault counts as committed (counts.go)
	// names is the names snapshot of the store's change, if there was one
	// at Open, until the graph's names are loaded (names_snapshot.go).
	names atomic.Pointer[namesSnap]
	// namesAt is 1 + the change of the names snapshot on disk, 0 if there
	// is none known.
	namesAt atomic.Uint64
	vecs    vectorState
	disk    diskSpace
	// graphProblem is what the last CheckGraph found.
	graphProblem atomic.Pointer[string]

	// Rebuilt reports that the store was emptied at open because its schema
	// or analyzer version differed; every vault is indexed again.
	Rebuilt bool
}

type schemaRecord struct {
	Schema   int `json:"schema"`
	Analyzer int `json:"analyzer"`
}

// memTableBytes is the size of Badger's memtables: 8 MB, not Badger's 64
// or the 16 ragd had before. A memtable is flushed as one table, whose
// builder's allocator grows to hold it and is then kept by Badger (up to
// eight, one let go every 2 s once none is asked for; see the table size
// below). On the 50× scale vault the resident memory 10 s after the cold
// index was 489–515 MB against 597–606 MB with 16 MB memtables, and 450–461
// MB against 479–484 MB once Badger had let go of them (two indexes each,
// alternately); the 10× cold index took the same time (medians of five,
// 9.08 and 9.14 s). A transaction may hold 15 % of a memtable, but that
// bounds no document (maxDocumentBytes, estimate).
const memTableBytes = 8 << 20

// memTableSize is the memtable size to open the Badger directory dir with:
// memTableBytes, or more while a memtable's log written with larger ones
// is still there (a build before this one, stopped by a crash). Badger
// replays each log into a memtable of the size it is opened with, and
// one too small for what the log holds ends the process; a log file is
// made twice its memtable's size.
func memTableSize(dir string) int64 {
	size := int64(memTableBytes)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return size
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".mem") {
			continue
		}
		if fi, err := e.Info(); err == nil {
			size = max(size, fi.Size()/2)
		}
	}
	return size
}

// Open opens (creating if needed) the store in opts.Dir: the segments are
// mapped and the journal replayed; the entity graph is loaded in the
// background (graph_load.go), its readers waiting for it.
func Open(opts Options) (*Store, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.BM25 == (BM25{}) {
		opts.BM25 = DefaultBM25
	}
	if err := os.MkdirAll(opts.Dir, 0o700); err != nil {
		return nil, fmt.Errorf("index: create data dir: %w", err)
	}
	bo := badger.DefaultOptions(opts.Dir).
		WithLogger(badgerLogger{opts.Logger}).
		WithMemTableSize(memTableSize(opts.Dir)).
		WithNumMemtables(2).
		WithNumLevelZeroTables(2).
		WithNumLevelZeroTablesStall(8).
		WithNumCompactors(2).
		WithValueLogFileSize(valueLogFileSize).
		WithCompression(options.None).
		WithBlockCacheSize(0).
		WithIndexCacheSize(16 << 20).
		WithMetricsEnabled(false).
		WithDetectConflicts(false).
		WithValueThreshold(valueThreshold)
	// Every level's tables are BaseTableSize (2 MB), not twice the level
	// above's: a table builder allocates about twice its table, and Badger
	// keeps up to eight builders' allocators after use and lets go of one
	// every 2 s (BuildersHeld). With the default multiplier those of the 50×
	// scale vault's cold index were 12-28 MiB each, 136 MiB of them still
	// resident 2 s after it ended; at 2 MB, 4 MiB each.
	bo.TableSizeMultiplier = 1
	db, err := badger.Open(bo)
	if err != nil {
		if strings.Contains(err.Error(), "Cannot acquire directory lock") {
			return nil, fmt.Errorf("%w: %s", ErrLocked, opts.Dir)
		}
		return nil, fmt.Errorf("index: open %s: %w", opts.Dir, err)
	}
	if opts.Fields.Properties == nil && opts.Fields.IgnoreProperties == nil {
		f := DefaultFields
		f.Lang, f.Detect = opts.Fields.Lang, opts.Fields.Detect
		opts.Fields = f
	}
	s := &Store{dir: opts.Dir, db: db, log: opts.Logger, mem: newMemIndex(), an: analyze.New(),
		params: opts.BM25, fields: opts.Fields, yield: opts.Yield,
		disk: diskSpace{dir: opts.Dir, minFree: DefaultMinFree, free: freeBytes}}
	if opts.MinFree > 0 {
		s.disk.minFree = uint64(opts.MinFree)
	}
	fresh, err := s.checkSchema()
	if err != nil {
		db.Close()
		return nil, err
	}
	if err := s.openLexical(segmentsDir(opts.Dir), fresh); err != nil {
		db.Close()
		return nil, err
	}
	if fresh {
		os.Remove(s.namesPath())
	} else if snap, err := openNames(s.namesPath(), s.seq); err != nil {
		s.log.Warn("the names snapshot is damaged; link targets resolve once the names are loaded", "err", err)
		os.Remove(s.namesPath())
	} else if snap != nil {
		s.names.Store(snap)
		s.namesAt.Store(s.seq + 1)
	}
	s.stopGC = make(chan struct{})
	if err := s.load(); err != nil {
		s.lex.Close()
		db.Close()
		return nil, err
	}
	s.warm = make(chan struct{}, 1)
	s.gcDone.Add(2)
	go s.collectGarbage()
	go s.warmAnchors()
	return s, nil
}

// Analyzer is the analyzer documents were indexed with; queries must use it.
func (s *Store) Analyzer() *analyze.Analyzer { return s.an }

// Close flushes and closes Badger.
func (s *Store) Close() error {
	s.closed.Store(true)
	serr := s.SaveVectorSnapshots()
	if serr != nil {
		s.log.Warn("could not save the vector index snapshot; it will be rebuilt at start", "err", serr)
	}
	s.stopOnce.Do(func() { close(s.stopGC) })
	s.gcDone.Wait()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.saveNames(s.seq); err != nil {
		s.log.Warn("could not save the names snapshot; link targets will resolve once the names are loaded at start", "err", err)
	}
	if err := s.lex.Close(); err != nil {
		s.log.Warn("could not write the lexical index segments; they will be rebuilt from the journal at start", "err", err)
	}
	return s.db.Close()
}

// collectGarbage runs gcValueLog every vlogGCInterval until Close.
func (s *Store) collectGarbage() {
	defer s.gcDone.Done()
	t := time.NewTicker(vlogGCInterval)
	defer t.Stop()
	for {
		select {
		case <-s.stopGC:
			return
		case <-t.C:
			if n := s.gcValueLog(); n > 0 {
				s.log.Info("value log garbage collected", "files", n)
			}
		}
	}
}

// gcValueLog rewrites the value log files of which at least half is
// garbage (values of replaced or deleted records), as long as there are
// any, and returns how many it rewrote. The file being written is never
// collected.
func (s *Store) gcValueLog() int {
	n := 0
	for {
		// A rewrite copies up to a whole file's live values first.
		if s.disk.check(valueLogFileSize/2) != nil {
			return n
		}
		err := s.db.RunValueLogGC(0.5)
		if err != nil {
			if !errors.Is(err, badger.ErrNoRewrite) && !errors.Is(err, badger.ErrRejected) {
				s.log.Warn("value log garbage collection", "err", err)
			}
			return n
		}
		n++
	}
}

// checkSchema compares the stored schema with this build's; a store of
// another schema is emptied. fresh reports an empty store (new or
// emptied), whose segments must be discarded too.
func (s *Store) checkSchema() (fresh bool, err error) {
	want := schemaRecord{Schema: schemaVersion, Analyzer: analyze.Version}
	var have schemaRecord
	found := false
	err = s.db.View(func(txn *badger.Txn) error {
		it, err := txn.Get(keySchema)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		return it.Value(func(v []byte) error { return json.Unmarshal(v, &have) })
	})
	if err != nil {
		return false, fmt.Errorf("index: read schema: %w", err)
	}
	if found && have == want {
		return false, nil
	}
	if found {
		s.log.Warn("index format changed; rebuilding from the vaults",
			"have_schema", have.Schema, "have_analyzer", have.Analyzer,
			"want_schema", want.Schema, "want_analyzer", want.Analyzer)
		if err := s.disk.check(0); err != nil {
			return false, err
		}
		if err := s.db.DropAll(); err != nil {
			return false, fmt.Errorf("index: drop old index: %w", err)
		}
		s.Rebuilt = true
	}
	b, _ := json.Marshal(want)
	return true, s.update(int64(len(b)), func(txn *badger.Txn) error { return txn.Set(keySchema, b) })
}

// load reads the statistics, the per-vault counts and the failed
// documents, and starts loading the entity graph in the background
// (loadGraph); note data comes from the segments, not from document
// records. A store written before the counts were kept loads its graph
// here, since the counts are taken from it.
func (s *Store) load() error {
	m := s.mem
	var counts map[string]VaultCount
	found := false
	err := s.db.View(func(txn *badger.Txn) error {
		if it, err := txn.Get(keyStats); err == nil {
			if err := it.Value(func(v []byte) error { return json.Unmarshal(v, &s.stats) }); err != nil {
				return fmt.Errorf("index: stats: %w", err)
			}
		} else if !errors.Is(err, badger.ErrKeyNotFound) {
			return err
		}
		var err error
		counts, found, err = readVaultCounts(txn)
		if err != nil {
			return fmt.Errorf("index: vault counts: %w", err)
		}
		return iterate(txn, nsPrefix(nsFailed), true, func(k, val []byte) error {
			f := parseFailed(val)
			m.failed[idFromKey(k)] = f
			if !found {
				addStats(counts, f.vault, Stats{Failed: 1}, 1)
			}
			return nil
		})
	})
	if err != nil {
		return err
	}
	txn, v, seq := s.db.NewTransaction(false), s.view(), s.seq
	if found {
		s.vcounts = counts
		m.tmu.Lock()
		m.counts = maps.Clone(counts)
		m.tmu.Unlock()
		s.gcDone.Add(1)
		go func() {
			defer s.gcDone.Done()
			s.loadGraph(txn, v, seq, nil)
		}()
		return nil
	}
	if err := s.loadGraph(txn, v, seq, counts); err != nil {
		return err
	}
	s.vcounts = counts
	m.tmu.Lock()
	m.counts = maps.Clone(counts)
	m.tmu.Unlock()
	return nil
}

// iterate calls fn for each key with prefix; values are fetched only if
// withValues. k and v are valid only during the call.
func iterate(txn *badger.Txn, prefix []byte, withValues bool, fn func(k, v []byte) error) error {
	opt := badger.IteratorOptions{Prefix: prefix, PrefetchValues: withValues, PrefetchSize: 64}
	it := txn.NewIterator(opt)
	defer it.Close()
	for it.Rewind(); it.Valid(); it.Next() {
		item := it.Item()
		var err error
		if withValues {
			err = item.Value(func(v []byte) error { return fn(item.Key(), v) })
		} else {
			err = fn(item.Key(), nil)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// badgerLogger routes Badger's logging to slog, keeping only warnings and
// errors.
type badgerLogger struct{ l *slog.Logger }

func (b badgerLogger) Errorf(f string, a ...any) {
	b.l.Error("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}
func (b badgerLogger) Warningf(f string, a ...any) {
	b.l.Warn("badger: " + strings.TrimSpace(fmt.Sprintf(f, a...)))
}
func (badgerLogger) Infof(string, ...any)  {}
func (badgerLogger) Debugf(string, ...any) {}
