package host

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/plugins"
)

// lengthReranker scores a candidate by its text's length. The query
// "panic" panics; "block" returns only when its context ends; the option
// panic = true panics in Configure.
type lengthReranker struct{}

func (lengthReranker) Configure(_ context.Context, o plugins.Options) error {
	if o["panic"] == true {
		panic("configure exploded")
	}
	return nil
}

func (lengthReranker) RerankerInfo(context.Context) (plugins.RerankerInfo, error) {
	return plugins.RerankerInfo{Name: "length", Version: "1"}, nil
}

func (lengthReranker) Rerank(ctx context.Context, q string, cands []plugins.Candidate) ([]float64, error) {
	switch q {
	case "panic":
		panic("rerank exploded")
	case "block":
		<-ctx.Done()
		return nil, ctx.Err()
	}
	out := make([]float64, len(cands))
	for i, c := range cands {
		out[i] = float64(len(c.Text))
	}
	return out, nil
}

// inProcessSpec is a lazy in-process reranker counting the
// implementations it makes.
func inProcessSpec(made *atomic.Int32) Spec {
	return Spec{Name: "rr", Kind: plugins.KindReranker, Builtin: true, Lazy: true,
		InProcess: func() any { made.Add(1); return lengthReranker{} }}
}

var twoCands = []plugins.Candidate{{Text: "ab"}, {Text: "abcd"}}

func rerankOK(t *testing.T, rr plugins.Reranker) {
	t.Helper()
	scores, err := rr.Rerank(context.Background(), "q", twoCands)
	if err != nil || len(scores) != 2 || scores[0] != 2 || scores[1] != 4 {
		t.Fatalf("rerank = %v, %v", scores, err)
	}
}

// An in-process built-in answers through the same handle, counted and
// timed like any plugin, with no process; a panic fails its own call, not
// the host, and the implementation is replaced by a fresh one that
// answers the next call.
func TestInProcessPlugin(t *testing.T) {
	t.Parallel()
	var made atomic.Int32
	m, logs := startManager(t, inProcessSpec(&made))
	if st := statusOf(t, m, "rr"); st.State != ipc.PluginIdle || made.Load() != 0 {
		t.Fatalf("before the first call: %+v, %d made", st, made.Load())
	}
	rr, err := m.Reranker("rr")
	if err != nil {
		t.Fatal(err)
	}
	rerankOK(t, rr)
	if st := statusOf(t, m, "rr"); st.State != ipc.PluginRunning || st.PID != 0 || st.Info["name"] != "length" {
		t.Fatalf("after the first call: %+v", st)
	}

	_, err = rr.Rerank(context.Background(), "panic", twoCands)
	if !errors.Is(err, errPanicked) || !strings.Contains(err.Error(), "rerank exploded") || Transient(err) {
		t.Fatalf("a panicking call = %v", err)
	}
	if r := logs.find("in-process plugin panicked"); r == nil || !strings.Contains(r["stack"].(string), "lengthReranker") {
		t.Errorf("the panic is not logged with its stack: %v", r)
	}
	rerankOK(t, rr) // waits for the replacement

	var st ipc.PluginStatus
	for _, s := range m.Status() {
		if s.Name == "rr" {
			st = s
		}
	}
	if !st.InProcess || !st.Builtin || st.Command != "" || st.PID != 0 || st.State != ipc.PluginRunning ||
		st.Calls != 3 || st.Errors != 1 || st.Restarts != 1 || made.Load() != 2 {
		t.Errorf("status = %+v (%d made)", st, made.Load())
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := rr.Rerank(context.Background(), "q", twoCands); !errors.Is(err, ErrClosed) {
		t.Errorf("a call after Close = %v", err)
	}
}

// An in-process call past the timeout fails with ErrTimeout (its context
// ended) and the implementation is replaced, as a process would be killed.
func TestInProcessTimeout(t *testing.T) {
	t.Parallel()
	var made atomic.Int32
	spec := inProcessSpec(&made)
	spec.Timeout = time.Second
	m, _ := startManager(t, spec)
	rr, _ := m.Reranker("rr")
	_, err := rr.Rerank(context.Background(), "block", twoCands)
	if !errors.Is(err, ErrTimeout) || !Transient(err) {
		t.Fatalf("a call past the timeout = %v", err)
	}
	rerankOK(t, rr)
	if st := statusOf(t, m, "rr"); st.Restarts != 1 || made.Load() != 2 || !strings.Contains(st.LastError, "implementation replaced") {
		t.Errorf("status = %+v (%d made)", st, made.Load())
	}
}

// A panic while starting is a failed start, retried like any other.
func TestInProcessPanicAtStart(t *testing.T) {
	t.Parallel()
	var made atomic.Int32
	spec := inProcessSpec(&made)
	spec.Lazy = false
	spec.Options = plugins.Options{"panic": true}
	m, _ := startManager(t, spec)
	st := statusOf(t, m, "rr")
	if st.State != ipc.PluginFailed || !strings.Contains(st.LastError, "panicked: configure exploded") {
		t.Fatalf("status = %+v", st)
	}
	rr, _ := m.Reranker("rr")
	if _, err := rr.Rerank(context.Background(), "q", twoCands); err == nil {
		t.Error("a call to a plugin that cannot start succeeded")
	}
}

// Only a built-in may run in-process.
func TestInProcessNeedsABuiltin(t *testing.T) {
	t.Parallel()
	_, err := New([]Spec{{Name: "x", Kind: plugins.KindReranker, InProcess: func() any { return lengthReranker{} }}}, Config{})
	if err == nil || !strings.Contains(err.Error(), "built-in") {
		t.Fatalf("New = %v", err)
	}
}
