package ipc

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// These tests simulate a foreign owner by asking the checks on behalf of a
// uid that is not ours: they need no root and run everywhere. The real
// second user is in safesocket_test.go.

func TestCheckSocketSimulatedForeignOwner(t *testing.T) {
	dir, err := os.MkdirTemp("", "ragd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "ragd.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	me := os.Getuid()
	if err := checkSocket(sock, me); err != nil {
		t.Fatalf("own socket refused: %v", err)
	}
	err = checkSocket(sock, me+1)
	if !errors.Is(err, ErrUnsafeSocket) || !strings.Contains(err.Error(), "directory belongs to uid") {
		t.Fatalf("socket in another user's directory: err = %v, want an unsafe-socket error about the directory's owner", err)
	}
	if err := checkSocketFile(sock, me+1); !errors.Is(err, ErrUnsafeSocket) || !strings.Contains(err.Error(), "belongs to uid") {
		t.Fatalf("another user's socket file: err = %v", err)
	}
}

func TestCheckPeerSimulatedForeignListener(t *testing.T) {
	if !peerCredentials {
		t.Skip("peer credentials are not read on this platform")
	}
	dir, err := os.MkdirTemp("", "ragd-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "ragd.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	me := os.Getuid()
	if err := checkPeer(c.(*net.UnixConn), sock, me); err != nil {
		t.Fatalf("own listener refused: %v", err)
	}
	if err := checkPeer(c.(*net.UnixConn), sock, me+1); !errors.Is(err, ErrUnsafeSocket) || !strings.Contains(err.Error(), "listening on it runs as uid") {
		t.Fatalf("listener of another uid: err = %v", err)
	}
}
