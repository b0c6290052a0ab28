package ipc_test

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/ipc/ipctest"
)

// syncBuffer is a bytes.Buffer safe for a logger used from several
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func listen(t *testing.T, path string) net.Listener {
	t.Helper()
	ln, err := ipc.Listen(path, discardLogger())
	if err != nil {
		t.Fatalf("Listen(%s): %v", path, err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

func TestListenModes(t *testing.T) {
	dir := filepath.Join(ipctest.ShortDir(t), "run", "ragd")
	sock := filepath.Join(dir, "ragd.sock")
	ln := listen(t, sock)

	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !di.IsDir() || di.Mode().Perm() != 0o700 {
		t.Errorf("socket dir mode = %v, want drwx------", di.Mode())
	}
	fi, err := os.Lstat(sock)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("%s is %v, not a socket", sock, fi.Mode())
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode = %v, want 0600", fi.Mode().Perm())
	}
	if got := ln.Addr().String(); got != sock {
		t.Errorf("Addr = %q, want %q", got, sock)
	}

	// Closing the listener removes the socket file.
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket still there after Close: %v", err)
	}
}

func TestListenInUse(t *testing.T) {
	sock := filepath.Join(ipctest.ShortDir(t), "ragd.sock")
	ln := listen(t, sock)

	ln2, err := ipc.Listen(sock, discardLogger())
	if err == nil {
		ln2.Close()
		t.Fatal("second Listen on a live socket succeeded")
	}
	if !errors.Is(err, ipc.ErrInUse) {
		t.Fatalf("second Listen: %v, want ErrInUse", err)
	}
	if !strings.Contains(err.Error(), sock) {
		t.Errorf("error %q does not name the socket", err)
	}

	// The first listener is untouched and still serves. The probe Listen
	// dialled to detect it is first in its backlog.
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("socket gone after the refused Listen: %v", err)
	}
	probe, err := ln.Accept()
	if err != nil {
		t.Fatalf("accept the probe connection: %v", err)
	}
	probe.Close()
	pingPong(t, ln, sock)
}

func TestListenRemovesStaleSocket(t *testing.T) {
	sock := filepath.Join(ipctest.ShortDir(t), "ragd.sock")
	old, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	old.(*net.UnixListener).SetUnlinkOnClose(false)
	old.Close()
	if fi, err := os.Lstat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("stale socket not left behind: %v %v", fi, err)
	}

	var logs syncBuffer
	ln, err := ipc.Listen(sock, slog.New(slog.NewTextHandler(&logs, nil)))
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	t.Cleanup(func() { ln.Close() })
	if !strings.Contains(logs.String(), "removed stale socket") {
		t.Errorf("no log line about the stale socket: %q", logs.String())
	}
	fi, err := os.Lstat(sock)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("new socket: %v %v", fi, err)
	}
	pingPong(t, ln, sock)
}

func TestListenRefusesNonSocket(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"regular file", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("my precious notes\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"directory", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"symlink", func(t *testing.T, path string) {
			target := path + ".target"
			if err := os.WriteFile(target, []byte("target\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, path); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(ipctest.ShortDir(t), "ragd.sock")
			tt.make(t, path)
			before, err := os.Lstat(path)
			if err != nil {
				t.Fatal(err)
			}
			content, _ := os.ReadFile(path)

			ln, err := ipc.Listen(path, discardLogger())
			if err == nil {
				ln.Close()
				t.Fatal("Listen over a non-socket succeeded")
			}
			if errors.Is(err, ipc.ErrInUse) || !strings.Contains(err.Error(), "not a socket") {
				t.Errorf("error = %v, want one saying it is not a socket", err)
			}

			after, err := os.Lstat(path)
			if err != nil {
				t.Fatalf("%s was removed: %v", path, err)
			}
			if after.Mode() != before.Mode() || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
				t.Errorf("%s changed: %v → %v", path, before.Mode(), after.Mode())
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, content) {
				t.Errorf("content changed: %q → %q", content, got)
			}
		})
	}
}

// TestListenAcceptsSameUser checks the peer-credential guard lets the
// daemon's own user in. (Refusing another uid needs a second user.)
func TestListenAcceptsSameUser(t *testing.T) {
	sock := filepath.Join(ipctest.ShortDir(t), "ragd.sock")
	ln := listen(t, sock)
	for range 3 {
		pingPong(t, ln, sock)
	}
}

// pingPong dials sock, accepts on ln and checks bytes flow both ways.
func pingPong(t *testing.T, ln net.Listener, sock string) {
	t.Helper()
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		ch <- accepted{c, err}
	}()
	c, err := net.DialTimeout("unix", sock, 2*time.Second)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	defer c.Close()
	var a accepted
	select {
	case a = <-ch:
	case <-time.After(time.Minute):
		t.Fatal("Accept did not return a same-user connection")
	}
	if a.err != nil {
		t.Fatalf("Accept: %v", a.err)
	}
	defer a.c.Close()
	deadline := time.Now().Add(5 * time.Second)
	c.SetDeadline(deadline)
	a.c.SetDeadline(deadline)

	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4)
	if _, err := io.ReadFull(a.c, buf); err != nil || string(buf) != "ping" {
		t.Fatalf("server read %q, %v", buf, err)
	}
	if _, err := a.c.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "pong" {
		t.Fatalf("client read %q, %v", buf, err)
	}
}
