package scale

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/ragd/ragd/bench/peer"
	"github.com/ragd/ragd/bench/ragdproc"
	"github.com/ragd/ragd/ipc"
)

// engine is one search engine under measurement, started afresh or on its
// existing index in its own directory.
type engine interface {
	name() string
	// start launches the process on dir (an empty directory for a cold
	// start; the previous start's for a warm one).
	start(dir string) error
	// ready waits until the index is complete: ragd idle, a peer's ready
	// line. observe sees ragd's status calls.
	ready(ctx context.Context, observe ragdproc.Observer) error
	// search asks for the top 10 with text, as an editor would, and
	// returns how many results came back.
	search(ctx context.Context, q string) (int, error)
	// changed tells the engine a vault file changed (ragd's watcher needs
	// no telling).
	changed(rel string) error
	pid() int
	indexDir() string
	// stop ends the process and returns its final state.
	stop() *os.ProcessState
	// progress says how far a cold index got, for a run that timed out
	// ("" when the engine cannot say).
	progress(ctx context.Context) string
}

// ragdEngine is ragd on a config of its own, its default pipeline, no
// embedder.
type ragdEngine struct {
	bin, vault, dir string
	d               *ragdproc.Daemon
	pollEvery       time.Duration
}

func (e *ragdEngine) name() string { return "ragd" }

func (e *ragdEngine) start(dir string) error {
	e.dir = dir
	if _, err := os.Stat(filepath.Join(dir, "ragd.toml")); err != nil {
		if err := ragdproc.WriteConfig(dir, e.vault, ""); err != nil {
			return err
		}
	}
	d, err := ragdproc.Start(e.bin, dir)
	e.d = d
	return err
}

func (e *ragdEngine) ready(ctx context.Context, observe ragdproc.Observer) error {
	return e.d.WaitIdle(ctx, e.pollEvery, observe)
}

func (e *ragdEngine) search(ctx context.Context, q string) (int, error) {
	resp, err := e.d.Client.Search(ctx, ipc.SearchRequest{Query: q, K: 10})
	if err != nil {
		var ie *ipc.Error
		if errors.As(err, &ie) && ie.Status == 400 {
			return 0, nil
		}
		return 0, err
	}
	return len(resp.Results), nil
}

func (e *ragdEngine) changed(string) error   { return nil }
func (e *ragdEngine) pid() int               { return e.d.PID() }
func (e *ragdEngine) indexDir() string       { return ragdproc.DataDir(e.dir) }
func (e *ragdEngine) stop() *os.ProcessState { return e.d.Stop() }

func (e *ragdEngine) progress(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := e.d.Client.Status(ctx)
	if err != nil {
		return "status: " + err.Error()
	}
	return progress(st)
}

// chunks returns how many chunks ragd holds.
func (e *ragdEngine) chunks(ctx context.Context) int {
	st, err := e.d.Client.Status(ctx)
	if err != nil {
		return 0
	}
	n := 0
	for _, v := range st.Vaults {
		n += v.Chunks
	}
	return n
}

// peerEngine is a ragd-peer process.
type peerEngine struct {
	bin, engine, vault, dir string
	p                       *peer.Proc
	isReady                 bool
	state                   *os.ProcessState
}

func (e *peerEngine) name() string { return e.engine }

func (e *peerEngine) start(dir string) error {
	e.dir, e.state, e.isReady = dir, nil, false
	p, err := peer.Spawn(e.bin, peer.Args(e.engine, filepath.Join(dir, "index"), peer.Source{Vault: e.vault}))
	e.p = p
	return err
}

func (e *peerEngine) ready(ctx context.Context, _ ragdproc.Observer) error {
	if e.isReady {
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- e.p.WaitReady() }()
	select {
	case err := <-done:
		e.isReady = err == nil
		return err
	case <-ctx.Done():
		e.p.Kill()
		<-done
		return ctx.Err()
	}
}

func (e *peerEngine) search(_ context.Context, q string) (int, error) {
	ids, err := e.p.Search(q, 10)
	return len(ids), err
}

func (e *peerEngine) changed(rel string) error { return e.p.Update(rel) }
func (e *peerEngine) pid() int                 { return e.p.PID() }
func (e *peerEngine) indexDir() string         { return filepath.Join(e.dir, "index") }

func (e *peerEngine) stop() *os.ProcessState {
	if e.state == nil {
		e.state, _ = e.p.Close()
	}
	return e.state
}

func (e *peerEngine) progress(context.Context) string { return "" }
