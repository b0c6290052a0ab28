package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragd/ragd/index"
	"github.com/ragd/ragd/internal/ragdtest"
	"github.com/ragd/ragd/ipc"
)

func TestSecondDaemonOnSameDataDirIsRefused(t *testing.T) {
	e := newEnv(t, notes)
	first := e.start()
	// Same data dir, different socket: the data-dir lock must refuse it.
	other := *e
	other.Socket = filepath.Join(e.Root, "s2", "ragd.sock")
	other.Config = filepath.Join(e.Root, "other.toml")
	other.writeConfig("")
	second := other.ragd("run", "-config", other.Config)
	select {
	case <-second.Exited():
	case <-time.After(30 * time.Second):
		t.Fatal("second daemon kept running")
	}
	if second.Err() == nil || !strings.Contains(second.Output(), "already running on data dir") {
		t.Fatalf("second daemon: err %v, output:\n%s", second.Err(), second.Output())
	}
	// Same socket, different data dir: the live socket must refuse it.
	third := *e
	third.Data = filepath.Join(e.Root, "data3")
	third.Config = filepath.Join(e.Root, "third.toml")
	third.writeConfig("")
	p := third.ragd("run", "-config", third.Config)
	<-p.Exited()
	if p.Err() == nil || !strings.Contains(p.Output(), "already listening") {
		t.Fatalf("third daemon: err %v, output:\n%s", p.Err(), p.Output())
	}
	// The first one is unharmed.
	if got := paths(first.search(t, "sourdough")); got != "recipes/Sourdough.md" {
		t.Errorf("first daemon: %q", got)
	}
	first.Stop(t)
}

func TestStaleSocketIsReplaced(t *testing.T) {
	e := newEnv(t, notes)
	os.MkdirAll(filepath.Dir(e.Socket), 0o700)
	ln, err := net.Listen("unix", e.Socket)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close() // the file stays, nothing answers: a crashed daemon's socket
	d := e.start()
	fi, err := os.Stat(e.Socket)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", fi, err)
	}
	if di, _ := os.Stat(filepath.Dir(e.Socket)); di.Mode().Perm() != 0o700 {
		t.Errorf("socket dir mode %v", di.Mode().Perm())
	}
	d.Stop(t)
	if _, err := os.Stat(e.Socket); !os.IsNotExist(err) {
		t.Errorf("socket left behind after a clean stop: %v", err)
	}
}

// TestCrashDuringIndexingLeavesAConsistentIndex kills ragd with SIGKILL in
// the middle of its first indexing pass, restarts it, and checks that the
// index it ends with is identical to a clean build of the same vault.
func TestCrashDuringIndexingLeavesAConsistentIndex(t *testing.T) {
	e := newEnv(t, syntheticVault(3000))
	d := e.ragd("run", "-config", e.Config)
	// Wait until indexing has visibly started, then kill.
	st := d.WaitStatus(t, "indexing to start", func(st *ipc.StatusResponse) bool {
		return st.Progress != nil && st.Progress.Done > 0 || ragdtest.Idle(st)
	})
	if ragdtest.Idle(st) {
		t.Log("indexing finished before the kill; the crash lands after it")
	}
	d.Cmd.Process.Signal(syscall.SIGKILL)
	<-d.Exited()

	d = e.start()
	d.Stop(t)
	crashed := dumpIndex(t, filepath.Join(e.Data, "index"))

	clean := *e
	clean.Data = filepath.Join(e.Root, "clean")
	clean.writeConfig("")
	c := clean.start()
	c.Stop(t)
	want := dumpIndex(t, filepath.Join(clean.Data, "index"))
	if crashed != want {
		t.Fatalf("index after crash differs from a clean build:\n%s", firstDiff(crashed, want))
	}
}

func dumpIndex(t *testing.T, dir string) string {
	t.Helper()
	s, err := index.Open(index.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := s.Dump(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return fmt.Sprintf("line %d:\n got %s\nwant %s", i+1, al[i], bl[i])
		}
	}
	return fmt.Sprintf("lengths differ: %d vs %d lines", len(al), len(bl))
}

func TestSIGTERMClosesCleanly(t *testing.T) {
	e := newEnv(t, notes)
	d := e.start()
	d.Stop(t) // fails unless the exit status is 0
	out := d.Output()
	if !strings.Contains(out, "ragd stopped") {
		t.Errorf("no clean-stop log line:\n%s", out)
	}
	// Badger closed cleanly: it reopens without replaying a crash.
	dumpIndex(t, filepath.Join(e.Data, "index"))
}

func TestCheckConfig(t *testing.T) {
	e := newEnv(t, notes)
	var out, errb bytes.Buffer
	if code := run([]string{"check-config", "-config", e.Config}, &out, &errb); code != 0 {
		t.Fatalf("valid config: exit %d: %s", code, errb.String())
	}
	bad := filepath.Join(e.Root, "bad.toml")
	os.WriteFile(bad, []byte("[daemon]\nsocket = \"x.sock\"\nlog_levl = \"info\"\n\n[[vault]]\nname = \"n\"\npath = \"/does/not/exist\"\n"), 0o600)
	out.Reset()
	errb.Reset()
	if code := run([]string{"check-config", "-config", bad}, &out, &errb); code != 1 {
		t.Fatalf("bad config: exit %d", code)
	}
	msg := errb.String()
	for _, want := range []string{"bad.toml:3: daemon.log_levl", "log_level", "bad.toml:7: vault[0].path"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error output lacks %q:\n%s", want, msg)
		}
	}
	// The daemon refuses to start on it, with the same message.
	cmd := exec.Command(os.Args[0], "run", "-config", bad)
	cmd.Env = append(os.Environ(), "RAGD_TEST_MAIN=1")
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "bad.toml:7: vault[0].path") {
		t.Fatalf("run on bad config: %v\n%s", err, b)
	}
	if code := run([]string{"frobnicate"}, &out, &errb); code != 2 {
		t.Errorf("unknown command: exit %d", code)
	}
}

func TestOfflineVaultKeepsItsIndex(t *testing.T) {
	e := newEnv(t, notes)
	// ragd refuses a config naming a missing path, so simulate an unmounted
	// drive by moving the vault away while the daemon runs.
	moved := e.Vault + ".away"
	d := e.start()
	if err := os.Rename(e.Vault, moved); err != nil {
		t.Fatal(err)
	}
	rr, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Wait: true})
	if err != nil {
		t.Fatal(err)
	}
	if rr.Vaults[0].Error == "" {
		t.Errorf("reindex of a missing vault reported no error: %+v", rr)
	}
	st, _ := d.Client.Status(context.Background())
	if st.Vaults[0].Online || st.Vaults[0].Documents != 3 {
		t.Errorf("offline vault status = %+v", st.Vaults[0])
	}
	if got := paths(d.search(t, "sourdough")); got != "recipes/Sourdough.md" {
		t.Errorf("offline vault not served: %q", got)
	}
	os.Rename(moved, e.Vault)
	if _, err := d.Client.Reindex(context.Background(), ipc.ReindexRequest{Wait: true}); err != nil {
		t.Fatal(err)
	}
	if st, _ := d.Client.Status(context.Background()); !st.Vaults[0].Online {
		t.Errorf("vault did not come back online")
	}
	d.Stop(t)
}

func TestRemovedVaultIsDroppedFromTheIndex(t *testing.T) {
	e := newEnv(t, notes)
	d := e.start()
	d.Stop(t)
	// Rename the vault in the configuration: the old name's documents go.
	cfg := strings.Replace(mustRead(t, e.Config), `name = "notes"`, `name = "renamed"`, 1)
	os.WriteFile(e.Config, []byte(cfg), 0o600)
	d = e.start()
	for _, r := range d.search(t, "sourdough starter") {
		if r.Vault != "renamed" {
			t.Errorf("result from the removed vault: %+v", r)
		}
	}
	d.Stop(t)
}

func mustRead(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
