//go:build unix

package ipc_test

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/ipc/ipctest"
)

// A connection not yet accepted and a request not yet read are what Yield
// gives way to; an idle connection is not, nor one whose bytes were read.
func TestPollUnreadSeesWaitingClients(t *testing.T) {
	ln, server, client := pair(t)
	if ln.PollUnread() {
		t.Fatal("an idle connection counted as a waiting client")
	}
	if _, err := client.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	if !ln.PollUnread() {
		t.Fatal("an unread request was not seen")
	}
	// The wake-up (an expired deadline) must not reach the reader as a
	// timeout: the bytes are read as they are.
	b := make([]byte, 4)
	if _, err := io.ReadFull(server, b); err != nil || string(b) != "ping" {
		t.Fatalf("read after a wake-up: %q, %v", b, err)
	}
	if ln.PollUnread() {
		t.Fatal("a request already read counted as waiting")
	}

	// A reader blocked when the request arrives gets it, woken or not.
	done := readAsync(server, 4)
	if _, err := client.Write([]byte("pong")); err != nil {
		t.Fatal(err)
	}
	ln.PollUnread()
	if err := <-done; err != nil {
		t.Fatalf("blocked read after a wake-up: %v", err)
	}
}

// A wake-up leaves the user's read deadline as it was: a far one still
// lets the read wait for its bytes, a passed one still ends it.
func TestPollUnreadKeepsReadDeadlines(t *testing.T) {
	ln, server, client := pair(t)
	if err := server.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	if !ln.PollUnread() {
		t.Fatal("an unread request was not seen")
	}
	done := readAsync(server, 2) // one byte is there, the other not yet
	if _, err := client.Write([]byte("b")); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("read with a far deadline after a wake-up: %v", err)
	}

	if err := server.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Write([]byte("c")); err != nil {
		t.Fatal(err)
	}
	ln.PollUnread()
	if _, err := server.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the user's deadline: %v, want a timeout", err)
	}
}

// A connection waiting to be accepted is seen, and the wake-up of the
// waiting Accept does not make it fail.
func TestPollUnreadWakesAccept(t *testing.T) {
	sock := filepath.Join(ipctest.ShortDir(t), "ragd.sock")
	ln, err := ipc.Listen(sock, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan error, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	client, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ln.PollUnread() // seen or already accepted: either way Accept must return it
	if err := <-accepted; err != nil {
		t.Fatalf("accept after a wake-up: %v", err)
	}

	// Not accepted at all: seen until it is.
	other, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if !ln.PollUnread() {
		t.Fatal("a connection waiting to be accepted was not seen")
	}
	c, err := ln.Accept()
	if err != nil {
		t.Fatalf("accept after a wake-up: %v", err)
	}
	c.Close()
}

// Yield returns at once when nobody waits, and after a bounded while when
// a request stays unread; it is harmless after Close.
func TestYieldIsBounded(t *testing.T) {
	ln, server, client := pair(t)
	ln.Yield()
	if _, err := client.Write([]byte("never read")); err != nil {
		t.Fatal(err)
	}
	ln.Yield() // must return although the bytes are never read
	server.Close()
	waiting, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer waiting.Close()
	ln.Close() // with a connection waiting to be accepted
	ln.Yield()
	if ln.PollUnread() {
		t.Fatal("closed descriptors were polled")
	}
}
