package daemon

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/index/ingest"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/ipc/ipctest"
	"github.com/ragd/ragd/query"
)

// indexedDaemon is a daemon over a real, indexed Badger store of a
// one-note vault, with neither plugins nor socket: what Run would have
// built before serving.
func indexedDaemon(t *testing.T) (*Daemon, func()) {
	t.Helper()
	dir := t.TempDir()
	vault := filepath.Join(dir, "vault")
	if err := os.Mkdir(vault, 0o755); err != nil {
		t.Fatal(err)
	}
	note := "# Restic\n\nKeep seven daily snapshots and prune the rest.\n"
	if err := os.WriteFile(filepath.Join(vault, "restic.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Daemon.DataDir = filepath.Join(dir, "data")
	cfg.Vaults = []config.Vault{{Name: "notes", Path: vault, Include: config.DefaultInclude, Exclude: config.DefaultExclude}}
	d, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	store, err := index.Open(index.Options{Dir: filepath.Join(cfg.Daemon.DataDir, "index")})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			store.Close()
		}
	})
	d.store = store
	d.ingest = ingest.New(store, ingest.Options{})
	d.engine = d.newEngine()
	j := &job{trigger: triggerStartup}
	d.runJob(t.Context(), j)
	if len(j.results) != 1 || j.results[0].Indexed != 1 {
		t.Fatalf("start-up pass: %+v", j.results)
	}
	return d, func() { closed = true; store.Close() }
}

// slowEmbedder answers when its context ends, with its error.
type slowEmbedder struct{}

func (slowEmbedder) Signature() string { return "slow" }
func (slowEmbedder) EmbedQuery(ctx context.Context, _ string) ([]float32, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

// A failure of the store is a 500 and a request past its deadline a 504,
// through the real handler, client and socket; both are the kinds the
// client's callers can test with errors.Is.
func TestStoreFailureIs500AndDeadline504(t *testing.T) {
	d, closeStore := indexedDaemon(t)
	c := ipctest.Serve(t, d, ipc.WithRequestTimeout(200*time.Millisecond)).Client
	ctx := t.Context()
	resp, err := c.Search(ctx, ipc.SearchRequest{Query: "daily snapshots", K: 3})
	if err != nil || len(resp.Results) != 1 {
		t.Fatalf("search on a healthy store: %+v %v", resp, err)
	}

	// The vector channel waits for an embedder past the request's deadline.
	opt := d.engine.Options()
	opt.Weights = map[string]float64{ipc.ChannelLexical: 1, ipc.ChannelVector: 1}
	healthy := d.engine
	d.engine = healthy.WithOptions(opt).WithEmbedder(slowEmbedder{}, nil)
	_, err = c.Search(ctx, ipc.SearchRequest{Query: "daily snapshots"})
	var ie *ipc.Error
	if !errors.As(err, &ie) || ie.Status != http.StatusGatewayTimeout || !errors.Is(err, ipc.ErrTimeout) {
		t.Errorf("search past its deadline: %v, want a 504", err)
	}
	d.engine = healthy

	// Badger closed under the engine: the text of the hits cannot be read.
	closeStore()
	_, err = c.Search(ctx, ipc.SearchRequest{Query: "daily snapshots"})
	if !errors.As(err, &ie) || ie.Status != http.StatusInternalServerError || !errors.Is(err, ipc.ErrInternal) {
		t.Errorf("search on a closed store: %v, want a 500", err)
	}
	// A request that is wrong stays a 400 whatever the store's state.
	if _, err := c.Search(ctx, ipc.SearchRequest{Query: "x", Mode: "psychic"}); !errors.Is(err, ipc.ErrInvalid) {
		t.Errorf("bad mode: %v, want a 400", err)
	}
}

var _ query.QueryEmbedder = slowEmbedder{}
