package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragd/ragd/daemon/config"
	"github.com/ragd/ragd/ipc"
)

// runDaemon runs a daemon on cfg until its status satisfies ready (nil:
// its start-up pass has reconciled its vault and it is idle); it returns
// the daemon and the function that stops it (also called at the test's
// end).
func runDaemon(t *testing.T, cfg *config.Config, ready func(*ipc.StatusResponse) bool) (*Daemon, func()) {
	t.Helper()
	d, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- d.Run(ctx) }()
	c := ipc.NewClient(cfg.Daemon.Socket)
	defer c.Close()
	for {
		st, err := c.Status(t.Context())
		if err == nil && (ready == nil && st.State == ipc.StateIdle && len(st.Vaults) == 1 && st.Vaults[0].LastReconcile != nil ||
			ready != nil && ready(st)) {
			break
		}
		select {
		case err := <-ran:
			cancel()
			t.Fatalf("Run returned before serving: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-ran; err != nil {
			t.Errorf("Run: %v", err)
		}
	}
	t.Cleanup(stop)
	return d, stop
}

// testVault writes a vault of two notes in a new directory and a
// configuration watching it; write adds a file to it and returns its hash.
func testVault(t *testing.T) (cfg *config.Config, write func(rel, body string) string) {
	dir := t.TempDir()
	vault := filepath.Join(dir, "v")
	write = func(rel, body string) string {
		p := filepath.Join(vault, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(body))
		return hex.EncodeToString(sum[:])
	}
	write("top.md", "# Top\n\nfirst words\n")
	write("sub/deep/a.md", "# A\n\nalpha words\n")
	cfg = config.Default()
	cfg.Daemon.Socket = filepath.Join(dir, "s")
	cfg.Daemon.DataDir = filepath.Join(dir, "data")
	cfg.Daemon.RescanInterval = time.Hour
	cfg.Vaults = []config.Vault{{Name: "notes", Path: vault, Include: config.DefaultInclude,
		Exclude: config.DefaultExclude, Watch: true}}
	return cfg, write
}

// Files changed while the start-up pass runs — here once it has synced the
// vault, when only the watcher can see them — are indexed: the pass's scan
// watched every folder before reading it, also the nested ones the
// watcher's own walk would only reach after the pass.
func TestChangesDuringStartupPassAreIndexed(t *testing.T) {
	cfg, write := testVault(t)
	_, stop := runDaemon(t, cfg, nil)
	stop()

	want := map[string]string{}
	passHook = func(trigger, _ string) {
		if trigger != triggerStartup {
			return
		}
		want["sub/deep/a.md"] = write("sub/deep/a.md", "# A\n\nalpha words, edited during the start-up pass\n")
		want["sub/deep/new.md"] = write("sub/deep/new.md", "# New\n\ncreated during the start-up pass\n")
		want["sub/fresh/b.md"] = write("sub/fresh/b.md", "# B\n\nin a folder made during the start-up pass\n")
	}
	t.Cleanup(func() { passHook = nil })
	d, _ := runDaemon(t, cfg, nil)
	if len(want) != 3 {
		t.Fatalf("the start-up pass did not run (%d files written)", len(want))
	}
	// The watcher's batches are passes queued behind the start-up pass;
	// each file is waited for until it is indexed with what was written.
	deadline := time.Now().Add(30 * time.Second)
	for rel, hash := range want {
		for {
			doc, err := d.store.Document("notes", rel)
			if err == nil && doc != nil && doc.Hash == hash {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s written during the start-up pass was never indexed (%+v, %v)", rel, doc, err)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// A query after a restart waits for the start-up pass at most
// daemon.startup_wait, then is answered from the index as it is: here the
// pass is held until the answer has come.
func TestQueryDuringStartupPassIsAnswered(t *testing.T) {
	cfg, _ := testVault(t)
	cfg.Search.Reranker = "none" // the test binary cannot run plugins
	_, stop := runDaemon(t, cfg, nil)
	stop()

	release := make(chan struct{})
	passHook = func(trigger, _ string) {
		if trigger == triggerStartup {
			<-release
		}
	}
	t.Cleanup(func() { passHook = nil })
	defer close(release) // the daemon stops at the test's end
	d, _ := runDaemon(t, cfg, func(st *ipc.StatusResponse) bool { return st.State == ipc.StateIndexing })
	c := ipc.NewClient(cfg.Daemon.Socket)
	defer c.Close()
	resp, err := c.Search(t.Context(), ipc.SearchRequest{Query: "alpha words", K: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Results) == 0 || resp.Results[0].Path != "sub/deep/a.md" {
		t.Fatalf("results during the start-up pass: %+v", resp.Results)
	}
	select {
	case <-d.startup.done:
		t.Fatal("the start-up pass ended while it was held")
	default:
	}
}
