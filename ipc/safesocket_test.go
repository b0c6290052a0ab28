package ipc_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragd/ragd/internal/otheruser"
	"github.com/ragd/ragd/ipc"
	"github.com/ragd/ragd/ipc/ipctest"
)

// needOtherUser skips t unless the test can act as a second local user.
func needOtherUser(t *testing.T) {
	t.Helper()
	if err := otheruser.Available(); err != nil {
		t.Skipf("skipping the second-user case: %v (the simulated-owner tests in safesocket_internal_test.go still run)", err)
	}
}

// TestListenRefusesUnsafeDirectory: ragd never listens in a directory that
// another user owns or that others can write, where they could replace
// its socket.
func TestListenRefusesUnsafeDirectory(t *testing.T) {
	tests := []struct {
		name      string
		otherUser bool
		mode      os.FileMode
		want      string
	}{
		{"own directory writable by all", false, 0o777, "writable by others"},
		{"own directory writable by the group", false, 0o770, "writable by others"},
		{"another user's directory (squatted, 0777)", true, 0o777, "belongs to uid"},
		{"another user's private directory", true, 0o755, "belongs to uid"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(ipctest.ShortDir(t), "ragd-squat")
			if tt.otherUser {
				needOtherUser(t)
				if err := otheruser.Mkdir(dir, otheruser.UID, tt.mode); err != nil {
					t.Fatal(err)
				}
			} else {
				if err := os.Mkdir(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(dir, tt.mode); err != nil {
					t.Fatal(err)
				}
			}
			sock := filepath.Join(dir, "ragd.sock")
			ln, err := ipc.Listen(sock, discardLogger())
			if err == nil {
				ln.Close()
				t.Fatal("Listen in an unsafe directory succeeded")
			}
			var ue *ipc.UnsafeSocketError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) || ue.Path != dir {
				t.Fatalf("err = %v, want an *UnsafeSocketError on %s saying %q", err, dir, tt.want)
			}
			if _, err := os.Lstat(sock); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a socket was created anyway: %v", err)
			}
		})
	}
}

// TestClientRefusesSquattedDirectory is the hijack found in the fault
// campaign: another user pre-creates ragd's socket directory and listens
// there with a fake ragd. The client must refuse before sending the query.
func TestClientRefusesSquattedDirectory(t *testing.T) {
	needOtherUser(t)
	dir := filepath.Join(openDir(t), "ragd-squat")
	if err := otheruser.Mkdir(dir, otheruser.UID, 0o777); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "ragd.sock")
	im := startImpostor(t, sock)
	assertRefused(t, sock, im, "directory belongs to uid")
}

// TestClientRefusesForeignListener: even when the directory and the socket
// file look like ours, a listener run by another user (seen through the
// connected socket's peer credentials) gets nothing.
func TestClientRefusesForeignListener(t *testing.T) {
	needOtherUser(t)
	if !ipc.PeerCredentialsChecked() {
		t.Skip("the client reads peer credentials only on Linux")
	}
	// The impostor binds its socket where it may write, then (as root can)
	// the socket file is moved into our private directory and given to us.
	staging := filepath.Join(openDir(t), "staging")
	if err := otheruser.Mkdir(staging, otheruser.UID, 0o700); err != nil {
		t.Fatal(err)
	}
	im := startImpostor(t, filepath.Join(staging, "ragd.sock"))
	sock := filepath.Join(ipctest.ShortDir(t), "ragd.sock")
	if err := os.Rename(filepath.Join(staging, "ragd.sock"), sock); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(sock, os.Getuid(), os.Getgid()); err != nil {
		t.Fatal(err)
	}
	if err := ipc.CheckSocket(sock); err != nil {
		t.Fatalf("the staged socket should pass the file checks: %v", err)
	}
	assertRefused(t, sock, im, "listening on it runs as uid")
}

// TestClientRefusesForeignSocketFile: a socket file of another user in our
// own directory (root could put it there) is refused without dialling.
func TestClientRefusesForeignSocketFile(t *testing.T) {
	needOtherUser(t)
	sock := filepath.Join(ipctest.ShortDir(t), "ragd.sock")
	ln := listen(t, sock)
	_ = ln
	if err := os.Lchown(sock, otheruser.UID, otheruser.UID); err != nil {
		t.Fatal(err)
	}
	err := ipc.CheckSocket(sock)
	if !errors.Is(err, ipc.ErrUnsafeSocket) || !strings.Contains(err.Error(), "belongs to uid") {
		t.Fatalf("CheckSocket = %v", err)
	}
	_, err = ipc.NewClient(sock).Status(context.Background())
	if !errors.Is(err, ipc.ErrUnsafeSocket) {
		t.Fatalf("Status = %v, want an unsafe-socket error", err)
	}
}

// TestClientRefusesDirectoryWritableByOthers needs no second user: our own
// directory with mode 0777 lets anyone swap the socket.
func TestClientRefusesDirectoryWritableByOthers(t *testing.T) {
	dir := ipctest.ShortDir(t)
	sock := filepath.Join(dir, "ragd.sock")
	ln := listen(t, sock)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	_, err := ipc.NewClient(sock).Search(context.Background(), ipc.SearchRequest{Query: "secret project plans"})
	if !errors.Is(err, ipc.ErrUnsafeSocket) || !strings.Contains(err.Error(), "writable by others") {
		t.Fatalf("Search = %v, want an unsafe-socket error", err)
	}
}

// openDir is a short temporary directory that other users may traverse,
// as /tmp is.
func openDir(t *testing.T) string {
	t.Helper()
	dir := ipctest.ShortDir(t)
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	return dir
}

func startImpostor(t *testing.T, sock string) *otheruser.Impostor {
	t.Helper()
	ln, err := otheruser.Listen(otheruser.UID, sock)
	if err != nil {
		t.Fatalf("listen as uid %d: %v", otheruser.UID, err)
	}
	im := otheruser.Serve(ln)
	t.Cleanup(func() { im.Close() })
	return im
}

// assertRefused sends every kind of request to sock and checks each is
// refused with an unsafe-socket error naming why, and that the impostor
// received nothing.
func assertRefused(t *testing.T, sock string, im *otheruser.Impostor, why string) {
	t.Helper()
	c := ipc.NewClient(sock)
	defer c.Close()
	ctx := context.Background()
	calls := map[string]func() error{
		"search": func() error {
			_, err := c.Search(ctx, ipc.SearchRequest{Query: "secret project plans"})
			return err
		},
		"context": func() error {
			_, err := c.Context(ctx, ipc.ContextRequest{Query: "secret project plans"})
			return err
		},
		"status": func() error { _, err := c.Status(ctx); return err },
		"events": func() error { return c.Events(ctx, func(ipc.Event) error { return nil }) },
	}
	for name, call := range calls {
		err := call()
		var ue *ipc.UnsafeSocketError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), why) {
			t.Errorf("%s: err = %v, want an *UnsafeSocketError saying %q", name, err, why)
		}
	}
	if n := im.Received(); n != 0 {
		t.Fatalf("%d requests reached the impostor", n)
	}
}
