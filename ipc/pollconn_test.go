package ipc_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/ipc/ipctest"
)

// pair listens on a fresh socket and returns the listener, the server's
// side of one accepted connection and the client's side.
func pair(t *testing.T) (*ipc.Listener, net.Conn, net.Conn) {
	t.Helper()
	sock := filepath.Join(ipctest.ShortDir(t), "ragd.sock")
	ln, err := ipc.Listen(sock, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	client, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	server := <-accepted
	if server == nil {
		t.FailNow()
	}
	t.Cleanup(func() { server.Close() })
	return ln, server, client
}

// readAll reads n bytes from c in a goroutine; the result arrives on the
// returned channel.
func readAsync(c net.Conn, n int) <-chan error {
	done := make(chan error, 1)
	go func() {
		b := make([]byte, n)
		_, err := io.ReadFull(c, b)
		done <- err
	}()
	return done
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout() && errors.Is(err, os.ErrDeadlineExceeded)
}

// TestPollingReadsWhatArrives: a Read waiting while the listener polls
// (and one that started waiting before polling was turned on, and goes on
// after it is turned off) returns the bytes when they come.
func TestPollingReadsWhatArrives(t *testing.T) {
	for _, tc := range []struct {
		name      string
		on, later bool // polling before the Read starts; turned on while it waits
	}{
		{"polling", true, false},
		{"turned on while waiting", false, true},
		{"not polling", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ln, server, client := pair(t)
			ln.Polling(tc.on)
			done := readAsync(server, 5)
			if tc.later {
				ln.Polling(true)
			}
			if _, err := client.Write([]byte("hello")); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatalf("read: %v", err)
			}
			// Off again: the next Read parks as usual and still gets its bytes.
			ln.Polling(false)
			done = readAsync(server, 3)
			if _, err := client.Write([]byte("bye")); err != nil {
				t.Fatal(err)
			}
			if err := <-done; err != nil {
				t.Fatalf("read after polling: %v", err)
			}
		})
	}
}

// TestPollingKeepsDeadlines: the deadlines the connection's user sets hold
// whether the listener polls or not — a deadline in the past fails a Read
// at once and wakes a waiting one (what net/http does to end its
// background read), a later one is not cut short by polling.
func TestPollingKeepsDeadlines(t *testing.T) {
	for _, on := range []bool{true, false} {
		ln, server, client := pair(t)
		ln.Polling(on)
		if err := server.SetReadDeadline(time.Unix(1, 0)); err != nil {
			t.Fatal(err)
		}
		if _, err := server.Read(make([]byte, 1)); !isTimeout(err) {
			t.Errorf("polling %v: read past its deadline: %v, want a timeout", on, err)
		}
		if err := server.SetReadDeadline(time.Time{}); err != nil {
			t.Fatal(err)
		}
		done := readAsync(server, 1)
		// The Read is waiting (or about to): a deadline in the past ends it.
		if err := server.SetReadDeadline(time.Unix(1, 0)); err != nil {
			t.Fatal(err)
		}
		if err := <-done; !isTimeout(err) {
			t.Errorf("polling %v: read whose deadline was moved to the past: %v, want a timeout", on, err)
		}
		// A deadline far off: polling does not end the Read early.
		if err := server.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		done = readAsync(server, 2)
		if _, err := client.Write([]byte("ok")); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Errorf("polling %v: read with a deadline ahead: %v", on, err)
		}
	}
}

// TestPollingServesHTTP: the daemon's HTTP server on a polling listener
// answers on new and kept-alive connections while polling is turned on and
// off under it.
func TestPollingServesHTTP(t *testing.T) {
	sock := filepath.Join(ipctest.ShortDir(t), "ragd.sock")
	ln, err := ipc.Listen(sock, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "{}")
	}), ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		srv.Close()
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("Serve: %v", err)
		}
	}()
	c := ipc.NewClient(sock)
	defer c.Close()
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for on := true; ; on = !on {
			select {
			case <-stop:
				return
			default:
			}
			ln.Polling(on)
		}
	}()
	for i := range 200 {
		if _, err := c.Runs(context.Background(), 1); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if i%50 == 0 {
			c.Close() // a new connection next time
		}
	}
	close(stop)
	wg.Wait()
}
