package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pluginv1 "github.com/ragd/ragd/plugins/proto/ragd/plugin/v1"
)

func TestWatchParent(t *testing.T) {
	var ppid atomic.Int64
	ppid.Store(42)
	gone := make(chan struct{})
	go watchParent(42, 5*time.Millisecond, func() int { return int(ppid.Load()) }, func() { close(gone) })
	select {
	case <-gone:
		t.Fatal("gone while the parent is alive")
	case <-time.After(30 * time.Millisecond):
	}
	ppid.Store(1) // reparented to init
	select {
	case <-gone:
	case <-time.After(time.Minute):
		t.Fatal("parent change not noticed")
	}
}

func TestCallError(t *testing.T) {
	err := callErr("embed", status.Error(codes.Unavailable, "error reading from server: EOF"))
	if status.Code(err) != codes.Unavailable {
		t.Errorf("status.Code = %v", status.Code(err))
	}
	if got := err.Error(); got != "embed: Unavailable: error reading from server: EOF" {
		t.Errorf("Error() = %q", got)
	}
	if got := callErr("extract", status.Error(codes.Unknown, "bad pdf")).Error(); got != "extract: bad pdf" {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(callErr("x", status.Error(codes.DeadlineExceeded, "late")), context.DeadlineExceeded) {
		t.Error("DeadlineExceeded does not match context.DeadlineExceeded")
	}
	if status.Code(serverErr(errors.New("boom"))) != codes.Unknown || status.Code(serverErr(context.Canceled)) != codes.Canceled {
		t.Error("serverErr codes")
	}
}

type noOptions struct{ Extractor }

type withOptions struct {
	Extractor
	got Options
}

func (w *withOptions) Configure(_ context.Context, o Options) error { w.got = o; return nil }

func TestConfigure(t *testing.T) {
	ctx := context.Background()
	if _, err := configure(ctx, noOptions{}, &pluginv1.ConfigureRequest{}); err != nil {
		t.Errorf("no options for a plugin without options: %v", err)
	}
	if _, err := configure(ctx, noOptions{}, &pluginv1.ConfigureRequest{OptionsJson: `{"a":1}`}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("options for a plugin without options: %v", err)
	}
	w := &withOptions{}
	js, _ := optionsJSON(Options{"model": "m", "dims": 3})
	if _, err := configure(ctx, w, &pluginv1.ConfigureRequest{OptionsJson: js}); err != nil || w.got["model"] != "m" || w.got["dims"] != float64(3) {
		t.Errorf("configure: %v, got %v", err, w.got)
	}
	var dst struct {
		Model string `json:"model"`
		Dims  int    `json:"dims"`
	}
	if err := DecodeOptions(w.got, &dst); err != nil || dst.Model != "m" || dst.Dims != 3 {
		t.Errorf("DecodeOptions = %+v, %v", dst, err)
	}
	if err := DecodeOptions(Options{"modle": "typo"}, &dst); err == nil || !strings.Contains(err.Error(), "modle") {
		t.Errorf("DecodeOptions with an unknown key: %v", err)
	}
}

func TestLoggerFormat(t *testing.T) {
	var buf bytes.Buffer
	old := stderr
	defer func() { stderr = old }()
	r, w, _ := pipe(t)
	stderr = w
	Logger().With("a", 1).Warn("hello", "b", "x")
	w.Close()
	_, _ = buf.ReadFrom(r)
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatalf("%v: %q", err, buf.String())
	}
	if m["@level"] != "warn" || m["@message"] != "hello" || m["a"] != float64(1) || m["b"] != "x" {
		t.Errorf("line %v", m)
	}
	if _, err := time.Parse("2006-01-02T15:04:05.000000Z07:00", m["@timestamp"].(string)); err != nil {
		t.Errorf("timestamp: %v", err)
	}
}

func pipe(t *testing.T) (*os.File, *os.File, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w, nil
}
