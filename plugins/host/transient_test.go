package host

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/ragd/ragd/plugins"
	"github.com/ragd/ragd/plugins/internal/testplugin"
)

func TestTransient(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{nil, false},
		{fmt.Errorf("plugin x: extract: %w", ErrTimeout), true},
		{fmt.Errorf("plugin x: %w", &unavailableError{state: "failed"}), true},
		{ErrClosed, true},
		{context.Canceled, true},
		{status.Error(codes.Unavailable, "error reading from server: EOF"), true},
		{fmt.Errorf("plugin x: %w", status.Error(codes.Canceled, "grpc: the client connection is closing")), true},
		{status.Error(codes.Unknown, "not a PDF"), false},
		{status.Error(codes.InvalidArgument, "encrypted"), false},
		{errors.New("no text"), false},
		{ErrUnknownPlugin, false},
	}
	for _, tt := range tests {
		if got := Transient(tt.err); got != tt.want {
			t.Errorf("Transient(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// TestDiedTwiceIsTransient: a call whose process dies, and dies again on
// the restarted process, fails with ErrUnavailable, an error that says
// nothing about the input: the caller must retry it later, not record the
// input as failed for good.
func TestDiedTwiceIsTransient(t *testing.T) {
	t.Parallel()
	m, _ := startManager(t, testSpec("emb", plugins.KindEmbedder, nil))
	_, err := embedder(t, m, "emb").Embed(context.Background(), plugins.InputDocument, []string{testplugin.Crash})
	if !errors.Is(err, ErrUnavailable) || !Transient(err) {
		t.Fatalf("err = %v, want a transient ErrUnavailable", err)
	}
}

// TestWaitForRestart: a plugin in a long restart backoff (it crashed again
// and again) fails calls at once, unless the caller asked to wait for the
// restart.
func TestWaitForRestart(t *testing.T) {
	t.Parallel()
	m, _ := startManager(t, testSpec("emb", plugins.KindEmbedder, nil))
	h := embedder(t, m, "emb")
	// Each crashing call costs two crashes; the backoff doubles with each.
	for i := 0; i < 5; i++ {
		h.Embed(context.Background(), plugins.InputDocument, []string{testplugin.Crash})
		p := m.procs["emb"]
		p.mu.Lock()
		long := p.state == "failed" && time.Until(p.nextTry) > 2*readyWait
		p.mu.Unlock()
		if long {
			break
		}
	}
	in := texts(2)
	if _, err := h.Embed(context.Background(), plugins.InputDocument, in); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a call during a long backoff: %v, want ErrUnavailable at once", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	vecs, err := h.Embed(WaitForRestart(ctx), plugins.InputDocument, in)
	if err != nil {
		t.Fatalf("a call waiting for the restart: %v", err)
	}
	checkVectors(t, in, vecs)
}
