package daemon

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/plugins"
)

// embedding runs the vector side: it embeds the chunks that have no vector
// in the background, after the lexical index has them (a note is
// searchable by keywords at once and semantically when its vectors land),
// and embeds queries for the vector channel.
type embedding struct {
	d    *Daemon
	name string // embedder plugin; "" when semantic search is off
	emb  plugins.Embedder

	wake chan struct{}

	mu      sync.Mutex
	info    plugins.EmbedderInfo
	sig     string // signature of info, once known
	lastErr string
	// maintained is when dead vectors were last collected and the
	// snapshot written (the worker goroutine's own).
	maintained time.Time
	// settling is set from the first vectors a drain stores until the
	// drain ends, the similarity floor calibrated on them: status says
	// embedding meanwhile, so that idle means a vector search finds what
	// it will find (before the floor the vector channel grounds nothing).
	settling atomic.Bool
}

const (
	embedBatch    = 64
	maintainEvery = 10 * time.Minute
)

func newEmbedding(d *Daemon, name string, emb plugins.Embedder) *embedding {
	return &embedding{d: d, name: name, emb: emb, wake: make(chan struct{}, 1)}
}

// poke tells the worker there may be new chunks to embed.
func (e *embedding) poke() {
	if e == nil {
		return
	}
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

func (e *embedding) setErr(err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err == nil {
		e.lastErr = ""
		return
	}
	e.lastErr = err.Error()
}

// learn asks the embedder for its vector space and tells the store.
func (e *embedding) learn(ctx context.Context) (string, error) {
	info, err := e.emb.EmbedderInfo(ctx)
	if err != nil {
		return "", fmt.Errorf("embedder %s: %w", e.name, err)
	}
	if info.Dimensions <= 0 {
		return "", fmt.Errorf("embedder %s does not know its dimensions yet", e.name)
	}
	sig := info.Signature()
	e.mu.Lock()
	changed := sig != e.sig
	e.mu.Unlock()
	if changed {
		if err := e.d.store.UseEmbedder(sig, info.Dimensions); err != nil {
			return "", err
		}
		e.mu.Lock()
		e.info, e.sig = info, sig
		e.mu.Unlock()
	}
	return sig, nil
}

// run embeds pending chunks until ctx ends.
func (e *embedding) run(ctx context.Context) {
	retry := time.Second
	logged := "" // the failure last logged as a warning
	for {
		err := e.drain(ctx)
		e.setErr(err)
		e.d.pauseForSpace(err)
		wait := 10 * time.Minute
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			// The same failure (an embedder that cannot start) comes back at
			// every retry: warn once, then at debug level.
			if msg := err.Error(); msg != logged {
				logged = msg
				e.d.log.Warn("embedding paused; retrying with backoff", "err", msg, "retry_in", retry)
			} else {
				e.d.log.Debug("embedding still paused", "retry_in", retry)
			}
			wait, retry = retry, min(2*retry, 2*time.Minute)
		} else {
			if logged != "" {
				e.d.log.Info("embedding resumed")
				logged = ""
			}
			retry = time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-e.wake:
		case <-time.After(wait):
		}
	}
}

// settleAfterChunks is how many chunks a backlog must have embedded for
// the daemon to hand memory back when it is done.
const settleAfterChunks = 1024

// drain embeds everything pending, then collects unreferenced vectors and
// saves the snapshot.
func (e *embedding) drain(ctx context.Context) error {
	if _, err := e.learn(ctx); err != nil {
		return err
	}
	// The floor measured before a restart holds from the first query.
	e.d.engine.RestoreCalibration(e.d.store)
	embedded := 0
	defer e.settling.Store(false)
	defer func() {
		if embedded >= settleAfterChunks && ctx.Err() == nil {
			e.d.settleMemory()
		}
	}()
	for ctx.Err() == nil {
		sig, pend, _ := e.d.store.PendingVectors(4 * embedBatch)
		if len(pend) == 0 {
			break
		}
		for len(pend) > 0 && ctx.Err() == nil {
			n := min(len(pend), e.batchSize())
			if err := e.embedBatch(ctx, sig, pend[:n]); err != nil {
				return err
			}
			embedded += n
			pend = pend[n:]
			if e.d.engine.SimilarityFloor() == 0 {
				// During a first pass: a floor measured on the vectors so
				// far lets the vector channel ground answers before the
				// backlog is done (it is measured again as the space grows).
				e.calibrate(ctx)
			}
		}
	}
	// Collecting dead vectors and writing the snapshot cost time in the
	// size of the index, not of the change: done at most every
	// maintainEvery (and the snapshot at close), never per saved note. A
	// crash meanwhile costs only a catch-up from Badger at the next start.
	if ctx.Err() == nil && time.Since(e.maintained) >= maintainEvery {
		e.maintained = time.Now()
		if n, err := e.d.store.CollectVectors(); err != nil {
			return err
		} else if n > 0 {
			e.d.log.Info("removed vectors of chunks no longer in any note", "vectors", n)
		}
		if err := e.d.store.SaveVectorSnapshots(); err != nil {
			e.d.log.Warn("could not save the vector snapshot", "err", err)
		}
	}
	e.calibrate(ctx)
	return ctx.Err()
}

// calibrate measures the vector similarity floor when it is due.
func (e *embedding) calibrate(ctx context.Context) {
	if floor, measured, err := e.d.engine.Calibrate(ctx, e.d.store); err != nil {
		e.d.log.Warn("could not calibrate the vector similarity floor", "err", err)
	} else if measured {
		e.d.log.Info("vector similarity floor calibrated", "floor", floor)
	}
}

func (e *embedding) batchSize() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	if b := e.info.MaxBatch; b > 0 && b < embedBatch {
		return b
	}
	return embedBatch
}

func (e *embedding) embedBatch(ctx context.Context, sig string, pend []index.PendingChunk) error {
	refs := make([]index.ChunkRef, len(pend))
	for i, p := range pend {
		refs[i] = p.Ref
	}
	chunks, err := e.d.store.Chunks(refs)
	if err != nil {
		return err
	}
	var texts []string
	var hashes []uint64
	for i, c := range chunks {
		if c.Ref != refs[i] {
			continue // changed meanwhile; it comes back as pending if still live
		}
		texts = append(texts, embedText(c))
		hashes = append(hashes, pend[i].Hash)
	}
	if len(texts) == 0 {
		return nil
	}
	vecs, err := e.emb.Embed(ctx, plugins.InputDocument, texts)
	if err != nil {
		return fmt.Errorf("embedder %s: %w", e.name, err)
	}
	if len(vecs) != len(texts) {
		return fmt.Errorf("embedder %s returned %d vectors for %d texts", e.name, len(vecs), len(texts))
	}
	swapped, err := e.d.store.PutVectors(sig, hashes, vecs)
	if err == nil {
		e.settling.Store(true)
	}
	if swapped {
		e.d.log.Info("re-embedding finished: the new vector space now serves queries", "embedder", e.name)
	}
	return err
}

// embedText is what is embedded for a chunk: its text. (The heading path
// is part of the BM25 fields; embedding it too would make every chunk of a
// long section look alike.)
func embedText(c index.Chunk) string { return c.Text }

// Signature implements query.QueryEmbedder: the space queries are
// embedded in.
func (e *embedding) Signature() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.sig
}

// EmbedQuery implements query.QueryEmbedder.
func (e *embedding) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	if e.Signature() == "" {
		if _, err := e.learn(ctx); err != nil {
			return nil, err
		}
	}
	vecs, err := e.emb.Embed(ctx, plugins.InputQuery, []string{text})
	if err != nil {
		return nil, err
	}
	if len(vecs) != 1 {
		return nil, errors.New("embedder returned no vector")
	}
	return vecs[0], nil
}

// status reports the vector side. chunks is the number of indexed chunks:
// until the embedder has described its vector space (it may be failing to
// start), there is no space to count a backlog in, and every chunk waits.
func (e *embedding) status(chunks int) *ipc.VectorStatus {
	st := e.d.store.VectorStats()
	floor := e.d.engine.SimilarityFloor() // asks e.Signature: before e.mu
	if st.Active == "" && st.Building == "" {
		st.Pending = chunks
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	out := &ipc.VectorStatus{Embedder: e.name, Signature: e.sig, Vectors: st.Vectors, Pending: st.Pending,
		Reembedding: st.Building != "", Note: st.Note, LastError: e.lastErr, Index: st.Index,
		Floor: floor}
	if out.Index == "" {
		out.Index = "exact"
	}
	if st.Building != "" {
		out.Note = fmt.Sprintf("re-embedding for a new embedder signature: %d of %d done; the old vectors serve meanwhile", st.Built, st.Built+st.Pending)
	}
	return out
}
