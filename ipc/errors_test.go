package ipc_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/ipc/ipctest"
)

// Errors keep their kind across the socket: the handler maps them to a
// status code and the client maps the code back, so errors.Is works on
// the client for what the backend returned.
func TestErrorKindsCrossTheSocket(t *testing.T) {
	f := &fakeBackend{}
	c := newClient(t, serve(t, ipc.NewHandler(f, discardLogger())))
	for _, tc := range []struct {
		name   string
		err    error
		status int
		kind   error
	}{
		{"invalid", ipc.BadRequest("no %s", "good"), 400, ipc.ErrInvalid},
		{"wrapped invalid", fmt.Errorf("plan: %w", ipc.ErrInvalid), 400, ipc.ErrInvalid},
		{"not found", ipc.NotFound("no vault named %q", "x"), 404, ipc.ErrNotFound},
		{"wrapped not found", fmt.Errorf("graph: %w", ipc.ErrNotFound), 404, ipc.ErrNotFound},
		{"unavailable", ipc.Unavailable("shutting down"), 503, ipc.ErrUnavailable},
		{"cancelled", fmt.Errorf("search: %w", context.Canceled), 503, ipc.ErrUnavailable},
		{"deadline", fmt.Errorf("search: load text: %w", context.DeadlineExceeded), 504, ipc.ErrTimeout},
		{"internal", fmt.Errorf("read chunk: %w", errors.New("badger: DB Closed")), 500, ipc.ErrInternal},
		{"explicit status wins", ipc.BadRequest("bad: %w", context.DeadlineExceeded), 400, ipc.ErrInvalid},
	} {
		f.mu.Lock()
		f.searchErr = tc.err
		f.mu.Unlock()
		resp, err := c.Search(testContext(t), ipc.SearchRequest{Query: "x"})
		var ie *ipc.Error
		switch {
		case resp != nil:
			t.Errorf("%s: a response came with the error", tc.name)
		case !errors.As(err, &ie) || ie.Status != tc.status:
			t.Errorf("%s: %v, want status %d", tc.name, err, tc.status)
		case !errors.Is(err, tc.kind):
			t.Errorf("%s: errors.Is(%v, %v) is false", tc.name, err, tc.kind)
		case ie.Message != tc.err.Error():
			t.Errorf("%s: message %q, want %q", tc.name, ie.Message, tc.err.Error())
		}
		for _, other := range []error{ipc.ErrInvalid, ipc.ErrNotFound, ipc.ErrUnavailable, ipc.ErrTimeout, ipc.ErrInternal} {
			if other != tc.kind && errors.Is(err, other) {
				t.Errorf("%s: is also %v", tc.name, other)
			}
		}
	}
}

// Errorf wraps like fmt.Errorf: the backend's own error stays findable.
func TestErrorfWraps(t *testing.T) {
	cause := errors.New("disk on fire")
	err := ipc.NotFound("note %q: %w", "a.md", cause)
	if !errors.Is(err, cause) || !errors.Is(err, ipc.ErrNotFound) || err.Error() != `note "a.md": disk on fire` {
		t.Errorf("%v: wrapping lost", err)
	}
	if errors.Unwrap(ipc.BadRequest("plain")) != nil {
		t.Error("an error wrapping nothing unwraps to something")
	}
}

// A daemon older than the client refuses it (426); the client says which
// side to upgrade.
func TestClientOlderDaemon(t *testing.T) {
	sock := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(ipc.HeaderProtocol, "1")
		w.WriteHeader(http.StatusUpgradeRequired)
		fmt.Fprintf(w, `{"error": "client speaks protocol \"%d\", this ragd speaks 1: upgrade ragd"}`, ipc.ProtocolVersion)
	}))
	c := newClient(t, sock)
	_, err := c.Status(testContext(t))
	var ve *ipc.VersionError
	var ie *ipc.Error
	if !errors.As(err, &ve) || ve.Server != 1 || ve.Client != ipc.ProtocolVersion || !errors.Is(err, ipc.ErrVersion) ||
		!errors.As(err, &ie) || ie.Status != http.StatusUpgradeRequired {
		t.Fatalf("error %v (%T)", err, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "ragd protocol 1") || !strings.Contains(msg, "upgrade ragd") {
		t.Errorf("message %q does not say to upgrade ragd", msg)
	}
	if c.ServerProtocol() != 1 {
		t.Errorf("ServerProtocol = %d", c.ServerProtocol())
	}
}

// A daemon newer than the client answers it; the client notices once.
func TestClientNewerDaemon(t *testing.T) {
	newer := ipc.ProtocolVersion + 1
	sock := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(ipc.HeaderProtocol, fmt.Sprint(newer))
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"plugins": []}`)
	}))
	c := newClient(t, sock)
	var calls, saw atomic.Int32
	c.OnNewerServer = func(v int) { calls.Add(1); saw.Store(int32(v)) }
	for range 2 {
		if _, err := c.Plugins(testContext(t)); err != nil {
			t.Fatal(err)
		}
	}
	if calls.Load() != 1 || int(saw.Load()) != newer || c.ServerProtocol() != newer {
		t.Errorf("OnNewerServer called %d times with %d; ServerProtocol %d", calls.Load(), saw.Load(), c.ServerProtocol())
	}
}

// Nothing on the socket is ErrUnavailable too.
func TestNotRunningIsUnavailable(t *testing.T) {
	c := newClient(t, ipctest.ShortDir(t)+"/none.sock")
	if _, err := c.Status(testContext(t)); !errors.Is(err, ipc.ErrUnavailable) {
		t.Errorf("%v is not ErrUnavailable", err)
	}
}
